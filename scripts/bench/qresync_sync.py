#!/usr/bin/env python3
"""Incremental sync of a 100,000-message folder with and without QRESYNC (issue 22, RFC 7162).

A folder of N messages is written straight into the test Dovecot's Maildir (IMAP APPEND of 100,000 messages would
take minutes), Tern syncs it whole once (`--sync-window-days 36500 --bodies none`), and then each round another client
expunges 5 messages, flags 5 and appends 10, and `tern sync USER` runs from process start to exit twice on copies of
the same store: once as it is (QRESYNC: the SELECT says what vanished and changed) and once with
`TERN_IMAP_DISABLE_CAPABILITIES=QRESYNC` (the folder's whole UID list by `UID SEARCH ALL` and a CHANGEDSINCE flag
fetch). Both connect through a counting TCP relay, so the bytes each way are measured too (TLS records included).
Prints a Markdown table.

    scripts/bench/qresync_sync.py [--user bob] [--messages 100000] [--rounds 5] [--tern .build/release/tern]

The folder ("Bench QRESYNC") is deleted at the end.
"""
import argparse
import asyncio
import imaplib
import os
import pathlib
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sync_peers import settings  # noqa: E402

FOLDER = "Bench QRESYNC"


class CountingRelay:
    """127.0.0.1:<port> → the server, counting bytes each way; reset() between measurements."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.up = self.down = 0
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        threading.Thread(target=self._run, args=(ready,), daemon=True).start()
        ready.wait()

    def _run(self, ready):
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
        self.port = self.server.sockets[0].getsockname()[1]
        ready.set()
        self.loop.run_forever()

    async def _client(self, reader, writer):
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self.target_port)

        async def pump(source, sink, upward):
            try:
                while data := await source.read(65536):
                    if upward:
                        self.up += len(data)
                    else:
                        self.down += len(data)
                    sink.write(data)
                    await sink.drain()
            finally:
                sink.close()

        await asyncio.gather(pump(reader, server_writer, True), pump(server_reader, writer, False), return_exceptions=True)

    def reset(self):
        self.up = self.down = 0


def fill_maildir(s, user, count):
    """Writes `count` small messages into the folder's Maildir `cur/`, owned like the rest of the mailbox."""
    maildir = pathlib.Path(s["TERN_MAILSERVERS_DIR"]) / "mail" / user / "Maildir" / FOLDER
    for part in ("cur", "new", "tmp"):
        (maildir / part).mkdir(parents=True, exist_ok=True)
    owner = (maildir.parent.stat().st_uid, maildir.parent.stat().st_gid)
    stamp = int(time.time())
    for index in range(count):
        body = (f"From: sender{index % 500}@example.org\r\nTo: {user}@{s['TERN_TEST_DOMAIN']}\r\n"
                f"Subject: Bench message {index}\r\nMessage-ID: <bench-{index}-{stamp}@example.org>\r\n"
                f"Date: Thu, 01 Oct 2026 10:00:00 +0000\r\n\r\nMessage {index}.\r\n")
        name = maildir / "cur" / f"{stamp}.{index}.bench:2,S"
        name.write_text(body)
        os.chown(name, *owner)
    for directory in [maildir, *[maildir / p for p in ("cur", "new", "tmp")]]:
        os.chown(directory, *owner)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--user", default="bob")
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tern", default=".build/release/tern")
    args = parser.parse_args()
    s = settings()
    address = f"{args.user}@{s['TERN_TEST_DOMAIN']}"
    password = open(s["TERN_TEST_PASSWORD_FILE"]).read().strip()
    context = ssl.create_default_context(cafile=s["TERN_TEST_CA"])

    def client():
        imap = imaplib.IMAP4_SSL("127.0.0.1", int(s["TERN_IMAPS_PORT"]), ssl_context=context)
        imap.login(address, password)
        return imap

    imap = client()
    imap.create(f'"{FOLDER}"')
    imap.subscribe(f'"{FOLDER}"')
    fill_maildir(s, args.user, args.messages)
    status = imap.status(f'"{FOLDER}"', "(MESSAGES)")[1][0].decode()
    print(f"folder: {status}", file=sys.stderr)
    relay = CountingRelay(int(s["TERN_IMAPS_PORT"]))
    scratch = tempfile.mkdtemp(prefix="tern-bench-qresync-")
    try:
        home = os.path.join(scratch, "home")
        env = dict(os.environ, TERN_HOME=home)
        subprocess.run([args.tern, "account", "add", args.user, "--email", address, "--imap", f"127.0.0.1:{relay.port}",
                        "--smtp", "127.0.0.1:1", "--password-command", f"cat {s['TERN_TEST_PASSWORD_FILE']}",
                        "--ca-file", s["TERN_TEST_CA"], "--sync-window-days", "36500", "--bodies", "none"],
                       env=env, check=True, capture_output=True)
        start = time.perf_counter()
        subprocess.run([args.tern, "sync", args.user], env=env, check=True, capture_output=True)
        print(f"first sync: {time.perf_counter() - start:.1f} s", file=sys.stderr)

        results = {"QRESYNC": [], "UID SEARCH ALL": []}
        for round_number in range(args.rounds):
            imap.select(f'"{FOLDER}"')
            _, data = imap.uid("SEARCH", None, "ALL")
            uids = data[0].split()
            for uid in uids[round_number * 10:round_number * 10 + 5]:
                imap.uid("STORE", uid, "+FLAGS.SILENT", "(\\Deleted)")
            imap.uid("STORE", b",".join(uids[-(round_number + 1) * 7:][:5]).decode(), "+FLAGS.SILENT", "(\\Flagged)")
            imap.expunge()
            for index in range(10):
                message = (f"From: new@example.org\r\nTo: {address}\r\nSubject: New {round_number} {index}\r\n"
                           f"Message-ID: <new-{uuid.uuid4().hex}@example.org>\r\n\r\nNew.\r\n")
                imap.append(f'"{FOLDER}"', "", None, message.encode())
            # The same starting store for both: copied before either runs.
            copy = os.path.join(scratch, f"copy-{round_number}")
            shutil.copytree(home, copy)
            for label, home_dir, extra in (("QRESYNC", home, {}),
                                           ("UID SEARCH ALL", copy, {"TERN_IMAP_DISABLE_CAPABILITIES": "QRESYNC"})):
                relay.reset()
                start = time.perf_counter()
                subprocess.run([args.tern, "sync", args.user], env=dict(env, TERN_HOME=home_dir, **extra), check=True,
                               capture_output=True)
                results[label].append(((time.perf_counter() - start) * 1000, relay.up, relay.down))
            shutil.rmtree(copy)
        # The floor: the same sync with nothing new anywhere (process, store, TLS, login, LIST, one STATUS per folder).
        for _ in range(args.rounds):
            relay.reset()
            start = time.perf_counter()
            subprocess.run([args.tern, "sync", args.user], env=env, check=True, capture_output=True)
            results.setdefault("nothing changed (floor)", []).append(((time.perf_counter() - start) * 1000, relay.up, relay.down))
        print("| Incremental sync (5 expunged, 5 flagged, 10 new) | median | range | bytes up | bytes down |")
        print("|---|---|---|---|---|")
        for label, rows in results.items():
            times = [r[0] for r in rows]
            print(f"| {label} | {statistics.median(times):.0f} ms | {min(times):.0f}–{max(times):.0f} ms "
                  f"| {statistics.median(r[1] for r in rows):,.0f} | {statistics.median(r[2] for r in rows):,.0f} |")
    finally:
        imap.select("INBOX")
        imap.delete(f'"{FOLDER}"')
        imap.logout()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
