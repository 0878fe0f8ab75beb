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
# reader) and Ceph RGW (the object-store tests start a real one).
# shellcheck disable=SC2034  # used by the scripts that source this file
RAYAGG_TEST_PACKAGES=(
  clang-14 libclang-rt-14-dev lld-14 clang-format-14
  python3-botocore ceph-mon ceph-osd radosgw
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

# Installs the packages that are not installed yet. Never prompts; works as
# root without sudo, and uses sudo -n only when not root.
ensure_packages() {
  local missing=()
  local package
  for package in "${RAYAGG_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' \
      || missing+=("$package")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  log "installing: ${missing[*]}"
  local as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo -n)
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Parallel jobs: every CPU this process may use.
cpu_jobs() { nproc 2>/dev/null || echo 2; }

build_preset() {
  local preset="$1"
  shift
  log "configuring and building preset '$preset'"
  cmake --preset "$preset" -S "$ROOT" >/dev/null
  # Build output goes to stderr: scripts/run keeps stdout for the console sink.
  cmake --build --preset "$preset" -j "$(cpu_jobs)" "$@" >&2
}
