#!/usr/bin/env bash
# Starts a throw-away Ceph RADOS Gateway on 127.0.0.1 for the object-store
# tests: one monitor, one OSD on the in-memory memstore backend, no manager,
# cephx off inside the cluster (S3 requests are still SigV4-checked against
# one user), random free ports, HTTP and HTTPS (certificate from a test CA).
# Virtual-hosted buckets are <bucket>.s3.localhost (rgw_dns_name): the
# certificate names *.s3.localhost, because OpenSSL does not match a
# wildcard directly under a one-label name such as *.localhost. Clients
# connect to 127.0.0.1 and send that Host (s3.connect_address); path-style
# requests to 127.0.0.1 work as well. Everything lives in DIR, which must be
# absent or empty.
#
# Usage: start-rgw.sh DIR [OWNER_PID]
# Writes DIR/env (RGW_ENDPOINT, RGW_TLS_ENDPOINT, RGW_PORT, RGW_TLS_PORT,
# RGW_CA_FILE, S3_ACCESS_KEY, S3_SECRET_KEY, CEPH_CONF, RGW_RUN_DIR) and
# prints it. With OWNER_PID, a watchdog stops the daemons and removes DIR
# once that process is gone, so a crashed test leaves nothing running.
# Needs (installed by scripts/test): ceph-mon ceph-osd radosgw.
# Facts behind the settings: ../shared/reference/object-storage-test-server.md.
set -euo pipefail
dir=${1:?usage: start-rgw.sh DIR [OWNER_PID]}
owner=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
access_key=${S3_ACCESS_KEY:-RAYAGGTESTACCESSKEY1}
secret_key=${S3_SECRET_KEY:-rayaggtestsecretkey00000000000000000000001}

case "$dir" in /*) ;; *) echo "start-rgw: DIR must be absolute" >&2; exit 2 ;; esac
# Ceph's admin sockets live under DIR: unix socket paths stop at 107 bytes.
if [ "${#dir}" -gt 60 ]; then echo "start-rgw: DIR is too long for admin sockets" >&2; exit 2; fi
if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
  echo "start-rgw: $dir is not empty" >&2; exit 2
fi
for tool in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool ceph-authtool openssl; do
  command -v "$tool" >/dev/null || { echo "start-rgw: $tool is missing (scripts/test installs ceph-mon ceph-osd radosgw)" >&2; exit 3; }
done
mkdir -p "$dir"/{run,log,mon,osd}
conf=$dir/ceph.conf

stop_all() { "$here/stop-rgw.sh" "$dir" >/dev/null 2>&1 || true; }
on_exit() {
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "start-rgw: failed; logs:" >&2
    tail -n 20 "$dir"/log/*.log >&2 2>/dev/null || true
    stop_all
  fi
}
trap on_exit EXIT
fail() { echo "start-rgw: $*" >&2; exit 1; }
# START_RGW_TRACE=1: how long each step took, on stderr.
started=$(date +%s%N)
trace() {
  [ -z "${START_RGW_TRACE:-}" ] || echo "start-rgw: $((($(date +%s%N) - started) / 1000000)) ms: $*" >&2
}
# Polls `command` every 0.1 s up to `tenths` times.
wait_until() {
  local tenths=$1 what=$2; shift 2
  local i
  for ((i = 0; i < tenths; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  fail "$what did not come up within $((tenths / 10)) s"
}
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
mon_port=$(free_port)
rgw_port=$(free_port)
tls_port=$(free_port)

# Test CA and a server certificate it signs.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj /CN=rayagg-test-ca -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
  -keyout "$dir/tls.key" -out "$dir/tls.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:s3.localhost,DNS:*.s3.localhost\nbasicConstraints=CA:FALSE\n' \
  >"$dir/tls.ext"
openssl x509 -req -in "$dir/tls.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial \
  -days 2 -extfile "$dir/tls.ext" -out "$dir/tls.crt" 2>/dev/null

fsid=$(cat /proc/sys/kernel/random/uuid)
cat >"$conf" <<CONF
[global]
fsid = $fsid
mon_host = v2:127.0.0.1:$mon_port
public_addr = 127.0.0.1
cluster_addr = 127.0.0.1
ms_bind_ipv4 = true
ms_bind_ipv6 = false
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
run_dir = $dir/run
admin_socket = \$run_dir/\$cluster-\$name.asok
pid_file = \$run_dir/\$cluster-\$name.pid
log_file = $dir/log/\$cluster-\$name.log
keyring = $dir/keyring
mon_data = $dir/mon/\$cluster-\$id
osd_data = $dir/osd/\$cluster-\$id
osd_objectstore = memstore
memstore_device_bytes = 2147483648
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
mon_max_pg_per_osd = 1000
osd_crush_chooseleaf_type = 0
mon_warn_on_pool_no_redundancy = false
mon_data_avail_crit = 0
mon_data_avail_warn = 0
osd_memory_target = 536870912
paxos_propose_interval = 0.05
paxos_min_wait = 0.01
[client.rgw.test]
ms_mon_client_mode = crc
rgw_frontends = beast endpoint=127.0.0.1:$rgw_port ssl_endpoint=127.0.0.1:$tls_port ssl_certificate=$dir/tls.crt ssl_private_key=$dir/tls.key
rgw_dns_name = s3.localhost
rgw_thread_pool_size = 64
log_file = $dir/log/rgw.log
CONF

ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
monmaptool --create --addv a "[v2:127.0.0.1:$mon_port]" --fsid "$fsid" "$dir/monmap" >/dev/null
ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring"
ceph-mon -c "$conf" -i a
trace "monitor started"
osd_uuid=$(cat /proc/sys/kernel/random/uuid)
osd_id=$(ceph -c "$conf" osd new "$osd_uuid")
mkdir -p "$dir/osd/ceph-$osd_id"
ceph-osd -c "$conf" -i "$osd_id" --mkfs --osd-uuid "$osd_uuid" 2>>"$dir/log/osd-mkfs.log"
ceph-osd -c "$conf" -i "$osd_id" 2>>"$dir/log/osd-start.log"
osd_up() { ceph -c "$conf" osd stat -f json | grep -q '"num_up_osds":1'; }
wait_until 600 "the OSD" osd_up
trace "OSD up"
radosgw -c "$conf" -n client.rgw.test
wait_until 600 "radosgw" python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$rgw_port/', timeout=1)"
trace "radosgw serving"
radosgw-admin -c "$conf" user create --uid=rayagg-test --display-name=rayagg-test \
  --access-key="$access_key" --secret-key="$secret_key" >/dev/null

trace "user created"
cat >"$dir/env" <<ENV
RGW_ENDPOINT=http://127.0.0.1:$rgw_port
RGW_TLS_ENDPOINT=https://127.0.0.1:$tls_port
RGW_PORT=$rgw_port
RGW_TLS_PORT=$tls_port
RGW_CA_FILE=$dir/ca.crt
S3_ACCESS_KEY=$access_key
S3_SECRET_KEY=$secret_key
CEPH_CONF=$conf
RGW_RUN_DIR=$dir/run
ENV

if [ -n "$owner" ]; then
  # Detached from our stdout so the caller's pipe closes when we exit.
  setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; "$2/stop-rgw.sh" "$3"; rm -rf "$3"' \
    rgw-watchdog "$owner" "$here" "$dir" </dev/null >/dev/null 2>&1 &
fi
cat "$dir/env"
