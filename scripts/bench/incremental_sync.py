#!/usr/bin/env python3
"""Incremental sync of 10 new messages (issue 6, goal < 200 ms), timed as a whole process.

A scratch TERN_HOME gets the account and one full sync; then, five times, 10 messages are appended to the
Inbox over IMAP and `tern sync USER` is timed from process start to exit (start, TLS, login, every folder,
the 10 messages with their bodies, threading and search index); then once with nothing new. The appended
messages are deleted at the end.

    scripts/bench/incremental_sync.py [--user alice] [--tern .build/release/tern] [--rounds 5]
"""
import argparse
import imaplib
import os
import ssl
import statistics
import subprocess
import tempfile
import time
from email.message import EmailMessage

from sync_peers import settings

SUBJECT = "Tern incremental bench"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--user", default="alice")
    parser.add_argument("--tern", default=".build/release/tern")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    s = settings()
    address = f"{args.user}@{s['TERN_TEST_DOMAIN']}"
    password = open(s["TERN_TEST_PASSWORD_FILE"]).read().strip()
    imap = imaplib.IMAP4_SSL("127.0.0.1", int(s["TERN_IMAPS_PORT"]), ssl_context=ssl.create_default_context(cafile=s["TERN_TEST_CA"]))
    imap.login(address, password)
    with tempfile.TemporaryDirectory(prefix="tern-bench-incremental-") as home:
        env = dict(os.environ, TERN_HOME=home)
        subprocess.run([args.tern, "account", "add", args.user, "--email", address, "--imap", f"127.0.0.1:{s['TERN_IMAPS_PORT']}",
                        "--smtp", f"127.0.0.1:{s['TERN_SMTPS_PORT']}", "--password-command", f"cat {s['TERN_TEST_PASSWORD_FILE']}",
                        "--ca-file", s["TERN_TEST_CA"], "--bodies", "all"], env=env, check=True, capture_output=True)
        subprocess.run([args.tern, "sync", args.user], env=env, check=True, capture_output=True)

        def timed_sync():
            start = time.perf_counter()
            subprocess.run([args.tern, "sync", args.user], env=env, check=True, capture_output=True)
            return (time.perf_counter() - start) * 1000

        new, idle = [], []
        try:
            for round_number in range(args.rounds):
                for index in range(10):
                    message = EmailMessage()
                    message["From"], message["To"] = "zoe@example.org", address
                    message["Subject"] = f"{SUBJECT} {round_number}.{index}"
                    message["Message-ID"] = f"<incremental-{time.time_ns()}-{index}@bench.tern.test>"
                    message.set_content("A new message for the incremental sync benchmark.\n" * 20)
                    imap.append("INBOX", None, None, message.as_bytes())
                new.append(timed_sync())
                idle.append(timed_sync())
        finally:
            imap.select("INBOX")
            _, found = imap.search(None, "SUBJECT", f'"{SUBJECT}"')
            for number in found[0].split():
                imap.store(number, "+FLAGS", "\\Deleted")
            imap.expunge()
            imap.logout()
    print(f"| 10 new messages | {min(new):.0f}–{max(new):.0f} ms, median {statistics.median(new):.0f} ms |")
    print(f"| nothing new | {min(idle):.0f}–{max(idle):.0f} ms, median {statistics.median(idle):.0f} ms |")


if __name__ == "__main__":
    main()
