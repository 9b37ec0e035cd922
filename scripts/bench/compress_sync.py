#!/usr/bin/env python3
"""Full sync with and without COMPRESS=DEFLATE (issue 22, RFC 4978): bytes on the wire and time.

Each run starts from a scratch TERN_HOME and syncs the whole account (`--sync-window-days 36500 --bodies all`, as
sync_peers.py), through a counting TCP relay to the test Dovecot, once as built (COMPRESS=DEFLATE, which Tern uses wherever it is
offered) and once with `TERN_IMAP_DISABLE_CAPABILITIES=COMPRESS=DEFLATE`, alternating. Loopback shows what compression
costs in time; the bytes are what a real network carries. `--rate MBIT` also prints the time those bytes take at that line rate.

    scripts/bench/compress_sync.py [--user carol] [--runs 3] [--tern .build/release/tern] [--rate 20]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qresync_sync import CountingRelay  # noqa: E402
from sync_peers import settings  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--user", default="carol")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tern", default=".build/release/tern")
    parser.add_argument("--rate", type=float, default=20.0, help="line rate in Mbit/s for the transfer-time column")
    args = parser.parse_args()
    s = settings()
    relay = CountingRelay(int(s["TERN_IMAPS_PORT"]))
    results = {"on": {}, "off": {"TERN_IMAP_DISABLE_CAPABILITIES": "COMPRESS=DEFLATE"}}
    rows_by = {policy: [] for policy in results}
    for _ in range(args.runs):
        for policy, extra in results.items():
            home = tempfile.mkdtemp(prefix="tern-bench-compress-")
            try:
                env = dict(os.environ, TERN_HOME=home, **extra)
                subprocess.run([args.tern, "account", "add", args.user, "--email", f"{args.user}@{s['TERN_TEST_DOMAIN']}",
                                "--imap", f"127.0.0.1:{relay.port}", "--smtp", "127.0.0.1:1",
                                "--password-command", f"cat {s['TERN_TEST_PASSWORD_FILE']}", "--ca-file", s["TERN_TEST_CA"],
                                "--sync-window-days", "36500", "--bodies", "all"], env=env, check=True, capture_output=True)
                relay.reset()
                start = time.perf_counter()
                subprocess.run([args.tern, "sync", args.user], env=env, check=True, capture_output=True)
                rows_by[policy].append((time.perf_counter() - start, relay.up, relay.down))
            finally:
                shutil.rmtree(home, ignore_errors=True)
    print(f"| Full sync of {args.user} | time (loopback) | bytes down | bytes up | down at {args.rate:g} Mbit/s |")
    print("|---|---|---|---|---|")
    for policy, rows in rows_by.items():
        times = [r[0] for r in rows]
        down = statistics.median(r[2] for r in rows)
        print(f"| COMPRESS=DEFLATE {policy} | {statistics.median(times):.2f} s ({min(times):.2f}–{max(times):.2f}) | {down:,.0f} "
              f"| {statistics.median(r[1] for r in rows):,.0f} | {down * 8 / (args.rate * 1e6):.1f} s |")


if __name__ == "__main__":
    main()
