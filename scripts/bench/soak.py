#!/usr/bin/env python3
"""Soak (issue 20): `tern sync --watch` for MINUTES with a message arriving every few seconds, every connection cut
every few minutes (the project's fault proxy between Tern and Dovecot) and flags changed by a second client.

Every 10 s the watch's resident memory and open file descriptors are sampled; at the end, once the last arrival has
been announced, the store must equal the server: the Inbox's messages, unread and flagged counts, and no message
stored twice. Prints one JSON object: memory and descriptors early (the median of the first samples after the first
sync) and late (the median of the last ones), their maximum, and what was done.

    scripts/bench/soak.py [--minutes 30] [--user alice] [--arrive-every 3] [--flag-every 7] [--cut-every 180]
                          [--tern .build/release/tern]
"""
import argparse
import imaplib
import json
import os
import random
import sqlite3
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from faultproxy import FaultProxy  # noqa: E402
from sync_peers import JSONLines, settings  # noqa: E402


def process_sample(pid):
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return rss / 1024, len(os.listdir(f"/proc/{pid}/fd"))


def server_counts(client, run):
    """The run's messages in the server's Inbox (the account may hold older mail outside Tern's sync window)."""
    client.select("INBOX", readonly=True)
    count = lambda *criteria: len(client.search(None, "SUBJECT", f'"Soak {run}"', *criteria)[1][0].split())  # noqa: E731
    return {"messages": count(), "unread": count("UNSEEN"), "flagged": count("FLAGGED")}


def store_counts(home, run):
    database = sqlite3.connect(f"file:{home}/tern.sqlite?mode=ro", uri=True)
    try:
        row = database.execute("""
            SELECT count(*), coalesce(sum(NOT e.isRead), 0), coalesce(sum(e.isStarred), 0)
            FROM emailFolder ef JOIN folder f ON f.id = ef.folderId JOIN email e ON e.id = ef.emailId
            WHERE f.folderType = 'inbox' AND e.subject LIKE ?""", (f"Soak {run} %",)).fetchone()
        duplicates = database.execute("""
            SELECT count(*) FROM (SELECT messageId FROM email WHERE messageId IS NOT NULL
                                  GROUP BY accountId, messageId HAVING count(*) > 1)""").fetchone()[0]
    finally:
        database.close()
    return {"messages": row[0], "unread": row[1], "flagged": row[2]}, duplicates


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--user", default="alice")
    parser.add_argument("--arrive-every", type=float, default=3)
    parser.add_argument("--flag-every", type=float, default=7)
    parser.add_argument("--cut-every", type=float, default=180)
    parser.add_argument("--tern", default=".build/release/tern")
    args = parser.parse_args()
    s = settings()
    address = f"{args.user}@{s['TERN_TEST_DOMAIN']}"
    context = ssl.create_default_context(cafile=s["TERN_TEST_CA"])

    def client():
        connection = imaplib.IMAP4_SSL("127.0.0.1", int(s["TERN_IMAPS_PORT"]), ssl_context=context)
        connection.login(address, s["TERN_TEST_PASSWORD"])
        return connection

    proxy = FaultProxy(int(s["TERN_IMAPS_PORT"]))
    other = client()
    run = uuid.uuid4().hex[:8]
    with tempfile.TemporaryDirectory(prefix="tern-soak-") as home:
        env = dict(os.environ, TERN_HOME=home)
        subprocess.run([args.tern, "account", "add", args.user, "--email", address, "--imap", f"127.0.0.1:{proxy.port}",
                        "--smtp", "127.0.0.1:1", "--password-command", f"cat {s['TERN_TEST_PASSWORD_FILE']}",
                        "--ca-file", s["TERN_TEST_CA"], "--bodies", "none"], env=env, check=True, capture_output=True)
        watcher = subprocess.Popen([args.tern, "sync", args.user, "--watch", "--json"], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        announced = set()
        events = {"watching": 0, "retryScheduled": 0, "newMail": 0}
        lines = JSONLines(watcher.stdout)

        def read_events(wait):
            read = lines.read(wait)
            if read is None:
                raise SystemExit(f"the watch ended (status {watcher.wait()})")
            for event in read:
                name = event.get("event")
                if name in events:
                    events[name] += 1
                if name == "newMail":
                    announced.update(message["subject"] for message in event.get("data", []))

        while events["watching"] == 0:
            read_events(1)
        start = time.monotonic()
        end = start + args.minutes * 60
        next_arrival = next_flag = start
        next_cut = start + args.cut_every
        next_sample = start
        samples = []
        appended = []
        flag_changes = 0
        while time.monotonic() < end:
            now = time.monotonic()
            if now >= next_arrival:
                subject = f"Soak {run} {len(appended)}"
                message = (f"From: zoe@example.org\r\nTo: {address}\r\nSubject: {subject}\r\n"
                           f"Message-ID: <soak-{run}-{len(appended)}@example.org>\r\n\r\nArrival {len(appended)}.\r\n")
                other.append("INBOX", "", None, message.encode())
                appended.append(subject)
                next_arrival += args.arrive_every
            if now >= next_flag:
                other.select("INBOX")
                uids = other.uid("SEARCH", None, "SUBJECT", f'"Soak {run}"')[1][0].split()
                if uids:
                    flag = random.choice(["\\Seen", "\\Flagged"])
                    other.uid("STORE", random.choice(uids), random.choice(["+FLAGS", "-FLAGS"]), f"({flag})")
                    flag_changes += 1
                next_flag += args.flag_every
            if now >= next_cut:
                proxy.cut_all()
                next_cut += args.cut_every
            if now >= next_sample:
                samples.append((now - start, *process_sample(watcher.pid)))
                next_sample += 10
            read_events(0.2)
        # Settle: every arrival announced, then the flags of the last IDLE-triggered syncs stored.
        deadline = time.monotonic() + 120
        while not set(appended) <= announced and time.monotonic() < deadline:
            read_events(1)
        # A last flag change wakes the watch once more, so the store ends on the server's final state.
        other.select("INBOX")
        last = other.uid("SEARCH", None, "SUBJECT", f'"Soak {run}"')[1][0].split()[-1]
        other.uid("STORE", last, "+FLAGS", "(\\Seen)")
        settle = time.monotonic() + 20
        while time.monotonic() < settle:
            read_events(1)
        samples.append((time.monotonic() - start, *process_sample(watcher.pid)))
        server = server_counts(other, run)
        store, duplicates = store_counts(home, run)
        watcher.terminate()
        watcher.wait(timeout=30)
        other.logout()
        proxy.close()

    window = max(3, len(samples) // 10)
    early, late = samples[1:1 + window], samples[-window:]
    print(json.dumps({
        "minutes": args.minutes, "appended": len(appended), "announced": len(set(appended) & announced),
        "flagChanges": flag_changes, "cuts": proxy.cuts, "connections": proxy.connections, "events": events,
        "rssMB": {"early": round(statistics.median(x[1] for x in early), 1), "late": round(statistics.median(x[1] for x in late), 1),
                  "max": round(max(x[1] for x in samples), 1)},
        "fds": {"early": statistics.median(x[2] for x in early), "late": statistics.median(x[2] for x in late),
                "max": max(x[2] for x in samples)},
        "server": server, "store": store, "duplicates": duplicates, "storeEqualsServer": server == store and duplicates == 0,
        # One sample a minute (seconds, MB, descriptors), to tell a plateau from a slope.
        "perMinute": [[round(t), round(rss, 1), fds] for t, rss, fds in samples[::6]],
    }))
    return 0 if server == store and duplicates == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
