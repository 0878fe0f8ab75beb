#!/usr/bin/python3
"""bench/object_store's S3 client (Debian's python3-botocore, path style).

  mkbucket BUCKET                 creates the bucket
  watch BUCKET STOP_FILE OUT      lists the bucket every --interval seconds
                                  until STOP_FILE exists; for each new event
                                  object, the time it was first listed minus
                                  its manifest's rayagg-first-event-ns (its
                                  oldest event's timestamp, which the loadgen
                                  sets at send time): the arrival -> listable
                                  delay of the object's oldest event, the
                                  worst of its events. Writes one line per
                                  object to OUT and prints a summary.

Endpoint and keys come from the environment: RGW_ENDPOINT, S3_ACCESS_KEY,
S3_SECRET_KEY (tests/support/rgw/start-rgw.sh's env file).
"""
import argparse
import os
import sys
import time


def client():
    import botocore.session
    from botocore.config import Config
    session = botocore.session.get_session()
    return session.create_client(
        "s3", endpoint_url=os.environ["RGW_ENDPOINT"], region_name="us-east-1",
        aws_access_key_id=os.environ["S3_ACCESS_KEY"],
        aws_secret_access_key=os.environ["S3_SECRET_KEY"],
        config=Config(s3={"addressing_style": "path"}, signature_version="s3v4"))


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def watch(args):
    s3 = client()
    paginator = s3.get_paginator("list_objects_v2")
    seen = {}  # key -> (listed_at_s, delay_s, events)
    lists = 0
    while True:
        stop = os.path.exists(args.stop_file)
        listed_at = time.time()
        for page in paginator.paginate(Bucket=args.bucket, Prefix="cluster-history/"):
            for item in page.get("Contents", []):
                key = item["Key"]
                if key in seen:
                    continue
                meta = s3.head_object(Bucket=args.bucket, Key=key)["Metadata"]
                first_ns = int(meta["rayagg-first-event-ns"])
                seen[key] = (listed_at, listed_at - first_ns / 1e9, int(meta["rayagg-events"]))
        lists += 1
        if stop:
            break
        time.sleep(max(0.0, args.interval - (time.time() - listed_at)))
    with open(args.out, "w") as out:
        for key, (listed_at, delay, events) in sorted(seen.items()):
            out.write(f"{listed_at:.3f} {delay:.3f} {events} {key}\n")
    delays = [delay for _, delay, _ in seen.values()]
    events = sum(events for _, _, events in seen.values())
    if not delays:
        print("objects=0")
        return 1
    print(f"objects={len(delays)} events={events} lists={lists} "
          f"p50_s={percentile(delays, 0.50):.2f} p99_s={percentile(delays, 0.99):.2f} "
          f"max_s={max(delays):.2f}")
    return 0


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("mkbucket")
    make.add_argument("bucket")
    watcher = commands.add_parser("watch")
    watcher.add_argument("bucket")
    watcher.add_argument("stop_file")
    watcher.add_argument("out")
    watcher.add_argument("--interval", type=float, default=0.25)
    args = parser.parse_args()
    if args.command == "mkbucket":
        client().create_bucket(Bucket=args.bucket)
        return 0
    return watch(args)


if __name__ == "__main__":
    sys.exit(main())
