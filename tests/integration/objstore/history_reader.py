#!/usr/bin/env python3
"""An independent reader of the KubeRay history-server layout, written from
the reference text (../shared/reference/history-server.md, sections 2.4, 2.5,
3.3 and 3.4), not from the sink's code: it lists a bucket through botocore
(path style), parses keys with its own patterns, decodes objects (.gz means
gzip; JSON Lines or a legacy JSON array), folds tasks, jobs, actors and nodes
and checks the rayagg manifests. Prints one JSON summary on stdout.

  history_reader.py --self-test
  history_reader.py --endpoint URL --bucket B [--prefix P]   (credentials:
      AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY in the environment)
"""
import argparse
import base64
import gzip
import json
import re
import sys

# Ray's session directory: session_YYYY-MM-DD_HH-MM-SS_ffffff_<pid> (section 2.4).
SESSION = re.compile(r"^session_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}_\d{6}_\d+$")
# The reader's event-file rule: a dash, a 4-2-2-2 digit hour stamp, optional
# dash + digits, optional .jsonl, optional .gz, end (section 2.4).
EVENT_FILE = re.compile(r"^(?P<node>.+)-(?P<hour>\d{4}-\d{2}-\d{2}-\d{2})(-\d+)?(?P<jsonl>\.jsonl)?(?P<gz>\.gz)?$")

# Keys as the reference shows them; each must parse (legacy names included).
FIXTURE = [
    ("cluster-history/raycluster/default/raycluster-a/session_2026-01-01_00-00-00_000000_1/"
     "abcd/node_events/abcd-2026-01-01-00-1767225600000000000.jsonl.gz", "node_events", True),
    ("cluster-history/rayjob/ns/my-job/rayjob-cluster/session_2026-01-01_00-00-00_000000_1/"
     "abcd/job_events/01000000/abcd-2026-01-01-13-1767272400000000000.jsonl", "01000000", False),
    ("cluster-history/raycluster/ns/c/session_2026-01-01_00-00-00_000000_1/abcd/node_events/"
     "abcd-2026-01-01-00", "node_events", False),  # legacy <node>-<hour>
    ("cluster-history/raycluster/ns/c/session_2026-01-01_00-00-00_000000_1/abcd/node_events/"
     "abcd-2026-01-01-00.gz", "node_events", True),  # legacy with .gz
]
NOT_EVENT_FILES = ["abcd.json", "raylet.out", "abcd-2026-1-01-00", "abcd-2026-01-01-00.json"]


def parse_event_key(key):
    """(kind, namespace, owner, cluster, session, node, category, gzip) or None."""
    parts = key.split("/")
    if len(parts) < 2 or parts[0] != "cluster-history":
        return None
    kind = parts[1]
    rest = parts[2:]
    owner = ""
    if kind in ("rayjob", "rayservice"):
        if len(rest) < 3:
            return None
        namespace, owner, cluster, rest = rest[0], rest[1], rest[2], rest[3:]
    elif kind == "raycluster":
        if len(rest) < 2:
            return None
        namespace, cluster, rest = rest[0], rest[1], rest[2:]
    else:
        return None
    if len(rest) < 4:
        return None
    session, node = rest[0], rest[1]
    if rest[2] == "node_events" and len(rest) == 4:
        category, name = "node_events", rest[3]
    elif rest[2] == "job_events" and len(rest) == 5:
        category, name = rest[3], rest[4]
    else:
        return None
    match = EVENT_FILE.match(name)
    if not match:
        return None
    return kind, namespace, owner, cluster, session, node, category, bool(match.group("gz"))


def parse_marker(key):
    parts = key.split("/")
    if len(parts) != 4 or parts[0] != "cluster-metadata":
        return None
    return parts[1], parts[2], parts[3]


def self_test():
    for key, category, gz in FIXTURE:
        parsed = parse_event_key(key)
        assert parsed is not None, key
        assert parsed[6] == category and parsed[7] == gz, (key, parsed)
        assert SESSION.match(parsed[4]), parsed[4]
    for name in NOT_EVENT_FILES:
        assert not EVENT_FILE.match(name), name
    assert not SESSION.match("my-session")
    print(json.dumps({"self_test": "ok", "fixture_keys": len(FIXTURE)}))


def hex_id(value):
    return base64.b64decode(value).hex() if value else ""


def decode(body, gz):
    if gz:
        body = gzip.decompress(body)
    text = body.decode("utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        return json.loads(stripped)  # legacy: one JSON array
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def fold(event, state):
    """Section 3.4: tasks by (taskId, attempt); jobs, actors, nodes by id."""
    for field in ("taskDefinitionEvent", "actorTaskDefinitionEvent", "taskLifecycleEvent"):
        payload = event.get(field)
        if payload:
            key = "%s:%d" % (hex_id(payload.get("taskId", "")), payload.get("taskAttempt", 0))
            task = state["tasks"].setdefault(key, {"definition": False, "states": set()})
            if field != "taskLifecycleEvent":
                task["definition"] = True
            for transition in payload.get("stateTransitions", []):
                task["states"].add((transition.get("state"), transition.get("timestamp")))
    for field, kind, id_field in (("driverJobDefinitionEvent", "jobs", "jobId"),
                                  ("driverJobLifecycleEvent", "jobs", "jobId"),
                                  ("actorDefinitionEvent", "actors", "actorId"),
                                  ("actorLifecycleEvent", "actors", "actorId"),
                                  ("nodeDefinitionEvent", "nodes", "nodeId"),
                                  ("nodeLifecycleEvent", "nodes", "nodeId")):
        payload = event.get(field)
        if payload and payload.get(id_field):
            state[kind].add(hex_id(payload[id_field]))


def read_bucket(args):
    import botocore.session
    from botocore.config import Config
    session = botocore.session.get_session()
    client = session.create_client(
        "s3", endpoint_url=args.endpoint, region_name="us-east-1",
        config=Config(s3={"addressing_style": "path"}, signature_version="s3v4"))
    root = args.prefix.strip("/") + "/" if args.prefix.strip("/") else ""
    keys = []
    paginator = client.get_paginator("list_objects_v2")
    for page in paginator.paginate(Bucket=args.bucket, Prefix=root):
        keys.extend(item["Key"][len(root):] for item in page.get("Contents", []))
    state = {"tasks": {}, "jobs": set(), "actors": set(), "nodes": set()}
    markers, sessions, unparsed = set(), set(), []
    events = manifest_events = 0
    writers = {}
    for key in keys:
        marker = parse_marker(key)
        if marker:
            markers.add(marker[2])
            continue
        parsed = parse_event_key(key)
        if parsed is None:
            unparsed.append(key)
            continue
        session_name = parsed[4]
        if not SESSION.match(session_name):
            unparsed.append(key)
            continue
        sessions.add(session_name)
        obj = client.get_object(Bucket=args.bucket, Key=root + key)
        lines = decode(obj["Body"].read(), parsed[7])
        events += len(lines)
        for event in lines:
            assert event.get("sessionName") == session_name, key
            fold(event, state)
        meta = obj.get("Metadata", {})
        if "rayagg-writer" in meta:
            manifest_events += int(meta["rayagg-events"])
            first, last = int(meta["rayagg-seq-first"]), int(meta["rayagg-seq-last"])
            assert last - first + 1 == int(meta["rayagg-events"]) == len(lines), key
            writer = writers.setdefault(meta["rayagg-writer"],
                                        {"ranges": [], "void": [], "drops": 0})
            writer["ranges"].append((first, last))
            # Numbers a writer kept across a restart declares unused: covered.
            for item in filter(None, meta.get("rayagg-seq-void", "").split(",")):
                void_first, void_last = item.split("-")
                writer["void"].append((int(void_first), int(void_last)))
            writer["drops"] = max(writer["drops"], int(meta["rayagg-drops"]))
    # Completeness per writer: the union of ranges (void ones included) is
    # 1..N; gaps must be covered by the writer's drop count.
    for writer in writers.values():
        ranges = sorted(writer["ranges"] + writer["void"])
        expected, gaps = 1, 0
        for first, last in ranges:
            if first > expected:
                gaps += first - expected
            expected = max(expected, last + 1)
        writer["gaps"] = gaps
        writer["complete"] = gaps <= writer["drops"]
        writer["events"] = sum(last - first + 1 for first, last in writer["ranges"])
        del writer["ranges"], writer["void"]
    print(json.dumps({
        "keys": len(keys), "unparsed": unparsed, "markers": sorted(markers),
        "sessions": sorted(sessions), "events": events, "manifest_events": manifest_events,
        "tasks": sorted(state["tasks"]),
        "tasks_without_definition": sorted(k for k, t in state["tasks"].items() if not t["definition"]),
        "jobs": sorted(state["jobs"]), "actors": sorted(state["actors"]),
        "nodes": sorted(state["nodes"]), "writers": writers,
    }, sort_keys=True))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--endpoint")
    parser.add_argument("--bucket")
    parser.add_argument("--prefix", default="")
    args = parser.parse_args()
    if args.self_test:
        self_test()
    else:
        read_bucket(args)


if __name__ == "__main__":
    sys.exit(main())
