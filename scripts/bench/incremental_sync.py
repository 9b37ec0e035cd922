#!/usr/bin/env python3
"""Incremental sync of 10 new messages (issue 6, goal < 200 ms), timed as a whole process, next to mbsync.

A scratch TERN_HOME gets the account (whole history, as in sync_peers.py) and one full sync, and mbsync
(isync: `apt-get install -y isync`) a full pull to a scratch Maildir; then, each round, 10 messages are
appended to the Inbox over IMAP and `tern sync USER` (start, TLS, login, every folder, the 10 messages with
their bodies, threading and search index) and `mbsync -a` (the same folders to Maildir) are timed from
process start to exit; then both once more with nothing new. The appended messages are deleted at the end.

    scripts/bench/incremental_sync.py [--user alice] [--tern .build/release/tern] [--rounds 5] [--no-peer]
    scripts/bench/incremental_sync.py --user dave --home HOME --per-round 1 --no-peer    # a store synced before (issue 38)

`--home` times the same rounds on a store synced before (the 1,000,000-message one), instead of a scratch home
synced here; `--per-round` sets how many messages each round appends.

`--watch` times what a person with Tern open sees instead: one `tern sync USER --watch --json` runs throughout (its
IMAP session and IDLE kept, as `tern serve` keeps them), and each round is the time from the APPEND's OK to the
line announcing the message on Tern's standard output. Beside it, a raw IDLE connection of the script's own times
the server's part: from the same APPEND's OK to its untagged EXISTS.
"""
import select
import socket
import argparse
import imaplib
import os
import ssl
import statistics
import subprocess
import tempfile
import time
from email.message import EmailMessage

from sync_peers import mbsync_config, settings, timed

SUBJECT = "Tern incremental bench"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--user", default="alice")
    parser.add_argument("--tern", default=".build/release/tern")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-peer", action="store_true", help="without mbsync")
    parser.add_argument("--home", help="a TERN_HOME with the account synced already (then --no-peer)")
    parser.add_argument("--per-round", type=int, default=10, help="messages appended each round")
    parser.add_argument("--watch", action="store_true", help="time new mail arriving in a running `tern sync --watch` (IDLE)")
    args = parser.parse_args()
    if args.watch:
        return watch_rounds(args)
    if args.home:
        args.no_peer = True
    s = settings()
    address = f"{args.user}@{s['TERN_TEST_DOMAIN']}"
    password = open(s["TERN_TEST_PASSWORD_FILE"]).read().strip()
    imap = imaplib.IMAP4_SSL("127.0.0.1", int(s["TERN_IMAPS_PORT"]), ssl_context=ssl.create_default_context(cafile=s["TERN_TEST_CA"]))
    imap.login(address, password)
    with tempfile.TemporaryDirectory(prefix="tern-bench-incremental-") as scratch:
        home = args.home or scratch
        env = dict(os.environ, TERN_HOME=home)
        if args.home:
            subprocess.run([args.tern, "sync", args.user], env=env, check=True, capture_output=True)  # up to date first
        else:
            subprocess.run([args.tern, "account", "add", args.user, "--email", address, "--imap", f"127.0.0.1:{s['TERN_IMAPS_PORT']}",
                            "--smtp", f"127.0.0.1:{s['TERN_SMTPS_PORT']}", "--password-command", f"cat {s['TERN_TEST_PASSWORD_FILE']}",
                            "--ca-file", s["TERN_TEST_CA"], "--sync-window-days", "36500", "--bodies", "all"],
                           env=env, check=True, capture_output=True)
            subprocess.run([args.tern, "sync", args.user], env=env, check=True, capture_output=True)
        config = None if args.no_peer else mbsync_config(s, args.user, home)
        if config:
            timed(["mbsync", "-c", config, "-a", "-q"])

        def timed_sync():
            start = time.perf_counter()
            subprocess.run([args.tern, "sync", args.user], env=env, check=True, capture_output=True)
            return (time.perf_counter() - start) * 1000

        def timed_peer():
            if not config:
                return None
            return timed(["mbsync", "-c", config, "-a", "-q"])[0] * 1000

        new, idle, peer_new, peer_idle = [], [], [], []
        try:
            for round_number in range(args.rounds):
                for index in range(args.per_round):
                    message = EmailMessage()
                    message["From"], message["To"] = "zoe@example.org", address
                    message["Subject"] = f"{SUBJECT} {round_number}.{index}"
                    message["Message-ID"] = f"<incremental-{time.time_ns()}-{index}@bench.tern.test>"
                    message.set_content("A new message for the incremental sync benchmark.\n" * 20)
                    imap.append("INBOX", None, None, message.as_bytes())
                new.append(timed_sync())
                peer_new.append(timed_peer())
                idle.append(timed_sync())
                peer_idle.append(timed_peer())
        finally:
            delete_appended(imap)

    def summary(times):
        if None in times:
            return "not run"
        return f"{min(times):.0f}–{max(times):.0f} ms, median {statistics.median(times):.0f} ms"

    print("| | tern | mbsync |")
    print("|---|---|---|")
    print(f"| {args.per_round} new message{'s' if args.per_round != 1 else ''} | {summary(new)} | {summary(peer_new)} |")
    print(f"| nothing new | {summary(idle)} | {summary(peer_idle)} |")


def delete_appended(imap):
    """The benchmark's messages removed from the Inbox, and the connection closed."""
    imap.select("INBOX")
    _, found = imap.search(None, "SUBJECT", f'"{SUBJECT}"')
    for number in found[0].split():
        imap.store(number, "+FLAGS", "\\Deleted")
    imap.expunge()
    imap.logout()


def idle_connection(s, address, password):
    """A raw TLS IMAP connection IDLEing on the Inbox: the server's own notification time."""
    context = ssl.create_default_context(cafile=s["TERN_TEST_CA"])
    raw = context.wrap_socket(socket.create_connection(("127.0.0.1", int(s["TERN_IMAPS_PORT"]))), server_hostname="localhost")
    reader = raw.makefile("rb")
    reader.readline()
    for tag, command in (("a1", f'LOGIN "{address}" "{password}"'), ("a2", "SELECT INBOX")):
        raw.sendall(f"{tag} {command}\r\n".encode())
        while not reader.readline().startswith(tag.encode()):
            pass
    raw.sendall(b"a3 IDLE\r\n")
    while not reader.readline().startswith(b"+"):
        pass
    return raw, reader


def watch_rounds(args):
    s = settings()
    address = f"{args.user}@{s['TERN_TEST_DOMAIN']}"
    password = open(s["TERN_TEST_PASSWORD_FILE"]).read().strip()
    if not args.home:
        raise SystemExit("--watch needs --home (a store with the account synced)")
    env = dict(os.environ, TERN_HOME=args.home)
    subprocess.run([args.tern, "sync", args.user], env=env, check=True, capture_output=True)  # up to date first
    imap = imaplib.IMAP4_SSL("127.0.0.1", int(s["TERN_IMAPS_PORT"]), ssl_context=ssl.create_default_context(cafile=s["TERN_TEST_CA"]))
    imap.login(address, password)
    raw, raw_reader = idle_connection(s, address, password)
    tern = subprocess.Popen([args.tern, "sync", args.user, "--watch", "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    tern_lines = tern.stdout

    def wait_for(stream, needle, timeout=30):
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([stream], [], [], deadline - time.perf_counter())
            if ready and needle in stream.readline():
                return time.perf_counter()
        raise SystemExit(f"no {needle!r} within {timeout} s")

    tern_times, server_times = [], []
    try:
        wait_for(tern.stderr, b'"state":"idle"', timeout=600)
        time.sleep(1)
        for round_number in range(args.rounds + 1):
            marker = f"{SUBJECT} watch {round_number} {time.time_ns()}"
            message = EmailMessage()
            message["From"], message["To"] = "zoe@example.org", address
            message["Subject"] = marker
            message["Message-ID"] = f"<incremental-watch-{time.time_ns()}@bench.tern.test>"
            message.set_content("A new message for the incremental sync benchmark.\n" * 20)
            imap.append("INBOX", None, None, message.as_bytes())
            appended = time.perf_counter()
            server = wait_for(raw_reader, b"EXISTS")
            seen = wait_for(tern_lines, marker.encode())
            if round_number > 0:  # the first round warms the IDLE paths up
                tern_times.append((seen - appended) * 1000)
                server_times.append((server - appended) * 1000)
            time.sleep(1.5)
    finally:
        tern.terminate()
        tern.wait(timeout=20)
        raw.close()
        delete_appended(imap)

    def summary(times):
        return f"{min(times):.0f}–{max(times):.0f} ms, median {statistics.median(times):.0f} ms"

    print("| new message, APPEND's OK to | median and range |")
    print("|---|---|")
    print(f"| Tern's line for it (`tern sync --watch`) | {summary(tern_times)} |")
    print(f"| the server's EXISTS on a raw IDLE connection | {summary(server_times)} |")


if __name__ == "__main__":
    main()
