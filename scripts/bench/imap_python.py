#!/usr/bin/env python3
"""The peer of `tern-bench imap`: Python's imaplib doing the same UID FETCH in the same run.
imaplib only frames the response (lines and literals); it does not parse ENVELOPE or BODYSTRUCTURE,
which Tern does. Prints one JSON object."""
import argparse, imaplib, json, resource, ssl, time

parser = argparse.ArgumentParser()
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int)
parser.add_argument("--ca")
parser.add_argument("--user")
parser.add_argument("--password")
parser.add_argument("--mailbox")
parser.add_argument("--replay", help="parse these recorded bytes (scripts/bench/imap_record.py) instead of asking a server")
parser.add_argument("--items", default="(FLAGS ENVELOPE BODYSTRUCTURE)")
parser.add_argument("--iterations", type=int, default=3)
args = parser.parse_args()

class Replay(imaplib.IMAP4):
    """imaplib reading recorded bytes: its own response loop, no socket."""

    def __init__(self, data):
        self.data = data
        self.debug = 0
        self.state = "SELECTED"
        self.literal = None
        self.tagged_commands = {}
        self.untagged_responses = {}
        self.continuation_response = ""
        self.is_readonly = True
        self.tagnum = 0
        self._tls_established = False
        self._mode_ascii()
        self.tagpre = b"t"
        self.tagre = __import__("re").compile(br"(?P<tag>t\d+) (?P<type>[A-Z]+) (?P<data>.*)", __import__("re").ASCII)
        self._cmd_log_len, self._cmd_log_idx, self._cmd_log = 10, 0, {}
        self.file = __import__("io").BytesIO(data)

    def parse(self):
        self.tagged_commands[b"t1"] = None
        self._get_tagged_response(b"t1")
        return self.untagged_responses.get("FETCH", [])


if args.replay:
    data = open(args.replay, "rb").read()
    best, count = None, 0
    for _ in range(args.iterations):
        start = time.perf_counter()
        fetched = Replay(data).parse()
        count = sum(1 for item in fetched if item != b")")
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
        del fetched
    print(json.dumps({"tool": "python imaplib", "messages": count, "seconds": best,
                      "peakRSSBytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
    raise SystemExit(0)

best, count = None, 0
for _ in range(args.iterations):
    start = time.perf_counter()
    client = imaplib.IMAP4_SSL(args.host, args.port, ssl_context=ssl.create_default_context(cafile=args.ca))
    client.login(args.user, args.password)
    client.select('"%s"' % args.mailbox, readonly=True)
    status, data = client.uid("FETCH", "1:*", args.items)
    assert status == "OK", data
    count = sum(1 for item in data if item != b")")
    client.logout()
    elapsed = time.perf_counter() - start
    best = elapsed if best is None else min(best, elapsed)
    del data

print(json.dumps({"tool": "python imaplib", "messages": count, "seconds": best,
                  "peakRSSBytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
