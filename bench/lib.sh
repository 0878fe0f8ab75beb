# shellcheck shell=bash disable=SC2034  # sets globals for the scripts that source it
# Shared by the benchmark scripts in bench/: process control, stats parsing,
# CPU pinning and starting a sink or a daemon on 127.0.0.1. Sourced, not
# executed; expects DAEMON and SINK (binary paths) to be set by the caller.
# shellcheck shell=bash

WORK="$(mktemp -d -t rayagg-bench.XXXXXX)"
STARTED_PIDS=()

# Stops one process we started: SIGTERM, then SIGKILL after 10 s.
stop_pid() {
  local pid="$1" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local pid
  for pid in "${STARTED_PIDS[@]}"; do stop_pid "$pid"; done
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  log "FAILED: $*"
  local file
  for file in "$WORK"/*.log; do
    [ -s "$file" ] && { echo "--- $(basename "$file") (last lines)" >&2; tail -n 20 "$file" >&2; }
  done
  exit 1
}

# Waits until FILE is non-empty, failing if PID exits first or after SECONDS.
wait_for_file() {
  local file="$1" pid="$2" seconds="$3" i
  for ((i = 0; i < seconds * 20; i++)); do
    [ -s "$file" ] && return 0
    kill -0 "$pid" 2>/dev/null || fail "process $pid exited before writing $file"
    sleep 0.05
  done
  fail "no $file after ${seconds}s"
}

# value KEY TEXT: the value of KEY in "k=v k=v" or one-per-line text.
value() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p" | head -n 1; }

# CPU time (user + system) of PID in clock ticks; fields 14 and 15 of
# /proc/PID/stat, counted after the ")" that ends the command name.
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# CPU seconds of PID's threads, summed by thread name ("name=seconds ...").
# The daemon's own threads are named after the binary; gRPC names its own.
thread_cpu() {
  local task
  for task in /proc/"$1"/task/*; do
    sed -E 's/^[0-9]+ \((.*)\) /\1|/' "$task/stat" 2>/dev/null || true
  done | awk -F'|' -v hz="$(getconf CLK_TCK)" '{
      split($2, f, " "); ticks[$1] += f[12] + f[13]
    } END { for (name in ticks) if (ticks[name] > 0) printf "%s=%.2fs ", name, ticks[name] / hz }'
}

# Pinning needs two CPUs we may use; otherwise run unpinned and say so.
PIN_DAEMON=()
PIN_LOAD=()
PINNING="unpinned (taskset unavailable or fewer than 2 CPUs)"
if [ "$(nproc)" -ge 2 ] && taskset -c 0 true 2>/dev/null && taskset -c 1 true 2>/dev/null; then
  PIN_DAEMON=(taskset -c 0)
  PIN_LOAD=(taskset -c 1)
  PINNING="daemon on CPU 0, loadgen + sink on CPU 1"
fi

start_sink() {  # start_sink NAME [SINK FLAGS...] -> sets SINK_PID, SINK_PORT
  local name="$1"
  shift
  "${PIN_LOAD[@]}" "$SINK" --port 0 --port-file "$WORK/$name.port" \
    --stats-file "$WORK/$name.stats" "$@" 2>"$WORK/$name.log" &
  SINK_PID=$!
  STARTED_PIDS+=("$SINK_PID")
  wait_for_file "$WORK/$name.port" "$SINK_PID" 10
  SINK_PORT="$(cat "$WORK/$name.port")"
}

start_daemon() {  # start_daemon NAME CONFIG [PIN...] -> sets DAEMON_PID, DAEMON_PORT
  local name="$1" config="$2"
  shift 2
  "$@" "$DAEMON" --config "$config" --grpc-port 0 --port-file "$WORK/$name.port" \
    >"$WORK/$name.log" 2>&1 &
  DAEMON_PID=$!
  STARTED_PIDS+=("$DAEMON_PID")
  wait_for_file "$WORK/$name.port" "$DAEMON_PID" 20
  DAEMON_PORT="$(cat "$WORK/$name.port")"
}


# Peak resident set size of PID in bytes (VmHWM), 0 if unknown.
peak_rss_bytes() {
  awk '/^VmHWM:/ { print $2 * 1024; found = 1 } END { if (!found) print 0 }' "/proc/$1/status" \
    2>/dev/null || echo 0
}

# Generates Python modules for proto/ into DIR (Ray's protos as Python would
# import them: src.ray.protobuf...). Needs protoc and grpc_python_plugin,
# both from protobuf-compiler(-grpc), which the build installs anyway.
generate_python_protos() {
  local dir="$1"
  mkdir -p "$dir"
  local protos=()
  mapfile -t protos < <(cd "$ROOT/proto" && find src -name '*.proto' | sort)
  (cd "$ROOT/proto" && protoc -I . --python_out="$dir" --grpc_python_out="$dir" \
    --plugin=protoc-gen-grpc_python="$(command -v grpc_python_plugin)" \
    "${protos[@]}") || fail "protoc could not generate Python modules"
}

# start_python_model NAME SINK_URL [MODEL FLAGS...] -> sets DAEMON_PID, DAEMON_PORT.
# Pinned like the daemon. Uses Debian's python3 (the packages live there),
# not whatever python3 comes first on PATH.
start_python_model() {
  local name="$1" url="$2"
  shift 2
  "${PIN_DAEMON[@]}" /usr/bin/python3 "$ROOT/bench/python_agent_model.py" \
    --proto-dir "$WORK/pyproto" --sink-url "$url" --port-file "$WORK/$name.port" "$@" \
    >"$WORK/$name.log" 2>&1 &
  DAEMON_PID=$!
  STARTED_PIDS+=("$DAEMON_PID")
  wait_for_file "$WORK/$name.port" "$DAEMON_PID" 30
  DAEMON_PORT="$(cat "$WORK/$name.port")"
}
