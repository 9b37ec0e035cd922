#!/usr/bin/env python3
"""Time from a server coming back to the first successful sync (issue 20, FR-SYNC-09; goal: within the backoff
schedule's step plus 1 s).

`tern sync USER --watch --json` runs with the standard 5/15/45 s schedule; Dovecot is stopped for DOWN seconds and
started again. The watch's states (standard error) give when it lost the server, each attempt, and when it was
listening again; the time from Dovecot accepting connections to `listening` is compared with the wait the schedule
had left at that moment. New mail appended right after the restart must then appear.

    scripts/bench/reconnect.py [--user dave] [--down 10 30 70] [--tern .build/release/tern]
"""
import argparse
import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sync_peers import JSONLines, settings, ROOT  # noqa: E402

MAILSERVERS = os.path.join(ROOT, "scripts", "mailservers")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--user", default="dave")
    parser.add_argument("--down", type=float, nargs="+", default=[10, 30, 70])
    parser.add_argument("--tern", default=".build/release/tern")
    args = parser.parse_args()
    s = settings()
    port = int(s["TERN_IMAPS_PORT"])
    with tempfile.TemporaryDirectory(prefix="tern-bench-reconnect-") as home:
        env = dict(os.environ, TERN_HOME=home)
        subprocess.run([args.tern, "account", "add", args.user, "--email", f"{args.user}@{s['TERN_TEST_DOMAIN']}",
                        "--imap", f"127.0.0.1:{port}", "--smtp", "127.0.0.1:1",
                        "--password-command", f"cat {s['TERN_TEST_PASSWORD_FILE']}", "--ca-file", s["TERN_TEST_CA"]],
                       env=env, check=True, capture_output=True)
        watcher = subprocess.Popen([args.tern, "sync", args.user, "--watch", "--json", "--bodies", "none"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        states = JSONLines(watcher.stderr)
        pending = []

        def next_state(deadline):
            while time.monotonic() < deadline:
                while pending:
                    event = pending.pop(0)
                    if event.get("event") == "state":
                        return time.monotonic(), event["state"]
                pending.extend(states.read(0.5) or [])
            return None, None

        try:
            while next_state(time.monotonic() + 120)[1] != "listening":
                pass
            print("| Dovecot down | first reconnect attempt after it was back | listening again after it was back | goal |")
            print("|---|---|---|---|")
            for down in args.down:
                subprocess.run([MAILSERVERS, "stop-dovecot"], check=True, capture_output=True)
                time.sleep(down)
                # Started in the background: the moment it accepts connections is taken here, not when the
                # script (which also checks packages and writes configuration) returns.
                starting = subprocess.Popen([MAILSERVERS, "start"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                while True:
                    try:
                        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                        break
                    except OSError:
                        time.sleep(0.05)
                back = time.monotonic()
                first_attempt = None
                while True:
                    at, state = next_state(back + 180)
                    if state is None:
                        raise SystemExit(f"no recovery within 180 s after Dovecot came back ({down} s down)")
                    if state == "authenticating" and first_attempt is None:
                        first_attempt = at - back
                    if state == "listening":
                        break
                recovered = at - back
                starting.wait()
                print(f"| {down:.0f} s | {first_attempt if first_attempt is not None else recovered:.2f} s | {recovered:.2f} s "
                      f"| ≤ the schedule's step (5, 15 or 45 s) + 1 s |")
        finally:
            watcher.kill()
            watcher.wait()


if __name__ == "__main__":
    main()
