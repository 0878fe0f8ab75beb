#!/usr/bin/python3
"""Signs S3 requests with Debian's python3-botocore (S3SigV4Auth) for
sigv4_botocore_test: one JSON case per input line, one JSON answer per output
line. Reads nothing else, sends nothing anywhere.

Case: {"access_key", "secret_key", "token", "region", "time" (YYYYmmddTHHMMSSZ),
"method", "host", "raw_path" (unencoded, starts with '/'), "query" ([[name, value]]),
"headers" ([[name, value]], unique names), "body_hex"}.
Answer: {"encoded_path", "authorization", "content_sha256"}."""
import datetime
import json
import sys
import types
import urllib.parse

import botocore
import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

assert botocore.__file__.startswith("/usr/lib/python3/dist-packages/"), botocore.__file__


def sign(case):
    fixed = datetime.datetime.strptime(case["time"], "%Y%m%dT%H%M%SZ")

    class FixedClock(datetime.datetime):
        @classmethod
        def utcnow(cls):
            return fixed

    botocore.auth.datetime = types.SimpleNamespace(datetime=FixedClock)
    # The S3 rule for key paths: everything but unreserved characters and '/'.
    encoded_path = urllib.parse.quote(case["raw_path"], safe="/-_.~")
    request = AWSRequest(
        method=case["method"],
        url="http://" + case["host"] + encoded_path,
        headers=dict(case["headers"]),
        data=bytes.fromhex(case["body_hex"]),
        params=[tuple(p) for p in case["query"]],
    )
    credentials = Credentials(case["access_key"], case["secret_key"], case["token"] or None)
    botocore.auth.S3SigV4Auth(credentials, "s3", case["region"]).add_auth(request)
    return {
        "encoded_path": encoded_path,
        "authorization": request.headers["Authorization"],
        "content_sha256": request.headers["X-Amz-Content-SHA256"],
    }


def main():
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(sign(json.loads(line))), flush=False)


if __name__ == "__main__":
    main()
