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
