#!/usr/bin/env python3
"""The peer of `tern bench imap`: Python's imaplib doing the same UID FETCH in the same run.
imaplib only frames the response (lines and literals); it does not parse ENVELOPE or BODYSTRUCTURE,
which Tern does. Prints one JSON object."""
import argparse, imaplib, json, resource, ssl, time

parser = argparse.ArgumentParser()
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--ca", required=True)
parser.add_argument("--user", required=True)
parser.add_argument("--password", required=True)
parser.add_argument("--mailbox", required=True)
parser.add_argument("--items", default="(FLAGS ENVELOPE BODYSTRUCTURE)")
parser.add_argument("--iterations", type=int, default=3)
args = parser.parse_args()

best, count = None, 0
for _ in range(args.iterations):
    start = time.perf_counter()
    client = imaplib.IMAP4_SSL(args.host, args.port, ssl_context=ssl.create_default_context(cafile=args.ca))
    client.login(args.user, args.password)
    client.select('"%s"' % args.mailbox, readonly=True)
    status, data = client.uid("FETCH", "1:*", args.items)
    assert status == "OK", data
    count = sum(1 for item in data if isinstance(item, (bytes, tuple)) and b"FETCH" in (item[0] if isinstance(item, tuple) else item))
    client.logout()
    elapsed = time.perf_counter() - start
    best = elapsed if best is None else min(best, elapsed)
    del data

print(json.dumps({"tool": "python imaplib", "messages": count, "seconds": best,
                  "peakRSSBytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
