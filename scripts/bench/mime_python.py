#!/usr/bin/env python3
"""The peer for `tern-bench mime`: Python's email package (BytesParser, policy.default) doing the
same work on the same files: parse, read From/To/Subject/Date, decode the plain and HTML bodies, list
attachment names. Prints one JSON line with the timings."""
import email.policy
import json
import sys
import time
from email.parser import BytesParser


def work(parser, data):
    msg = parser.parsebytes(data)
    _ = (msg["from"], msg["to"], msg["subject"], msg["message-id"])
    try:
        _ = msg["date"].datetime if msg["date"] is not None else None
    except Exception:
        pass
    for kind in ("plain", "html"):
        try:
            body = msg.get_body(preferencelist=(kind,))
            if body is not None:
                body.get_content()
        except Exception:
            pass
    try:
        _ = [part.get_filename() for part in msg.iter_attachments()]
    except Exception:
        pass


def main():
    iterations = int(sys.argv[1])
    files = sys.argv[2:]
    datas = [open(f, "rb").read() for f in files]
    parser = BytesParser(policy=email.policy.default)
    for data in datas:  # warm-up
        work(parser, data)
    best = None
    for _ in range(iterations):
        start = time.perf_counter()
        for data in datas:
            work(parser, data)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    total = sum(len(d) for d in datas)
    print(json.dumps({"messages": len(datas), "bytes": total, "seconds": best}))


if __name__ == "__main__":
    main()
