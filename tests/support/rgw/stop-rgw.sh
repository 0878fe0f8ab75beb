#!/usr/bin/env bash
# Stops what start-rgw.sh started in DIR, by its pid files: radosgw first,
# then the OSD and the monitor. SIGKILL: the data is throw-away, and a
# radosgw that outlives its cluster would wait 120 s on a SIGTERM.
set -uo pipefail
dir=${1:?usage: stop-rgw.sh DIR}
for name in ceph-client.rgw.test ceph-osd.0 ceph-mon.a; do
  pidfile=$dir/run/$name.pid
  [ -f "$pidfile" ] && kill -KILL "$(cat "$pidfile")" 2>/dev/null
done
exit 0
