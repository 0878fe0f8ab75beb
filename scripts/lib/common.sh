# shellcheck shell=bash
# Shared by scripts/run, scripts/test and bench/run: install what is missing
# (Debian bookworm packages only), configure and build a CMake preset.
# Sourced, not executed.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Everything the build, the tests and the benchmarks need.
RAYAGG_PACKAGES=(
  cmake ninja-build g++ pkg-config ccache
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libboost-dev libspdlog-dev nlohmann-json3-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev libssl-dev
  libsqlite3-dev libsimdjson-dev
)

# What only scripts/test and scripts/fuzz need (never scripts/run): the clang
# legs (clang-14 cannot link sanitizers or libFuzzer without libclang-rt-14-dev
# under --no-install-recommends; lld-14 links their many test executables
# faster), clang-format-14, botocore (the SigV4 oracle and independent layout
# reader), Ceph RGW (the object-store tests start a real one) and Debian's
# Chromium (the browser tests drive it headless; never a browser download).
# shellcheck disable=SC2034  # used by the scripts that source this file
RAYAGG_TEST_PACKAGES=(
  clang-14 libclang-rt-14-dev lld-14 clang-format-14
  python3-botocore ceph-mon ceph-osd radosgw chromium
)

# ccache: paths under the checkout are hashed relative to it, so a clean clone
# at another path (CI) hits the cache a previous clone filled. Objects built
# with -g hash their build directory too unless hash_dir is off: the clang legs
# build with line tables (-gline-tables-only), so it is off; their debug info
# then names the directory of the clone that filled the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
# Depend mode: on a miss ccache hashes the headers the compiler lists in its
# -MD file instead of running the preprocessor first. A cold build (a fresh
# machine, every file a miss) then costs what the compiler costs: with the
# preprocessor pass, ten typical files took 160.9 CPU-s instead of 145.8
# (docs/TESTING.md, "Build time"); hits work as before.
export CCACHE_DEPEND="${CCACHE_DEPEND:-1}"

log() { printf '==> %s\n' "$*" >&2; }

# apt-get install of the given packages, never prompting: as root without
# sudo, else through sudo -n.
apt_install() {
  local as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo -n)
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# Installs the packages that are not installed yet, and Node and npm if
# missing (ensure_node). Never prompts; works as root without sudo, and uses
# sudo -n only when not root.
ensure_packages() {
  local missing=()
  local package
  for package in "${RAYAGG_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' \
      || missing+=("$package")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "installing: ${missing[*]}"
    apt_install "${missing[@]}"
  fi
  ensure_node
}

# Node and npm build the page (ui/). The project's machines come with Node 20
# from NodeSource (its apt source disabled); a machine with neither gets
# Debian's nodejs 18 and npm, which the page's build also supports (ui/
# package.json "engines"; only `npm run check` needs eslint's Node 20).
ensure_node() {
  local wanted=()
  command -v node >/dev/null || wanted+=(nodejs)
  command -v npm >/dev/null || wanted+=(npm)
  [ "${#wanted[@]}" -eq 0 ] && return 0
  log "no ${wanted[*]} on this machine: installing Debian's (Node 18)"
  apt_install "${wanted[@]}"
  command -v node >/dev/null && command -v npm >/dev/null \
    || { log "node or npm is still missing after installing ${wanted[*]}"; return 1; }
}

# Parallel jobs: every CPU this process may use.
cpu_jobs() { nproc 2>/dev/null || echo 2; }

# The page (ui/) into build/ui/, which CMake embeds into ray-task-history:
# `npm ci` only when ui/package-lock.json changed since the last install (a
# stamp in ui/node_modules/; npm's cache stays at its default, so a machine
# that installed once builds offline), then `npm run check` (tsc and eslint,
# warnings are errors) unless told --no-check, then `npm run build`.
# Usage: build_ui [--no-check]
build_ui() {
  local check=1
  [ "${1:-}" = --no-check ] && check=0
  local ui="$ROOT/ui"
  local stamp="$ui/node_modules/.rayagg-lock-stamp"
  ensure_node || return 1
  if [ ! -f "$stamp" ] || ! cmp -s "$ui/package-lock.json" "$stamp"; then
    log "npm ci in ui/ (package-lock.json changed since the last install)"
    (cd "$ui" && npm ci --no-audit --no-fund --loglevel=error >&2) || {
      log "npm ci in ui/ failed: the npm registry (or npm's cache, ~/.npm) must be reachable"
      return 1
    }
    cp "$ui/package-lock.json" "$stamp"
  fi
  if [ "$check" -eq 1 ]; then
    log "checking the page (npm run check: tsc, eslint)"
    (cd "$ui" && npm run --silent check >&2) || {
      log "the page's type check or lint failed (run: cd ui && npm run check)"
      return 1
    }
  fi
  log "building the page into build/ui/ (npm run build)"
  (cd "$ui" && RAYAGG_UI_OUT="$ROOT/build/ui" npm run --silent build >&2) || {
    log "building the page failed (run: cd ui && npm run build)"
    return 1
  }
  [ -f "$ROOT/build/ui/index.html" ] \
    || { log "npm run build wrote no build/ui/index.html"; return 1; }
}

build_preset() {
  local preset="$1"
  shift
  log "configuring and building preset '$preset'"
  cmake --preset "$preset" -S "$ROOT" >/dev/null
  # Build output goes to stderr: scripts/run keeps stdout for the console sink.
  cmake --build --preset "$preset" -j "$(cpu_jobs)" "$@" >&2
}
