#!/usr/bin/env python3
"""A whole `tern thread` process on a cached thread, next to `notmuch show` on the same five messages (issue 15).

The thread (five messages, each an HTML newsletter-like part with its plain alternative, quoting the one
before) is appended to a user's INBOX on the local Dovecot and written to a scratch Maildir for notmuch.
Tern syncs it with bodies, then each run is a fresh process: `tern thread ID --expand-all` (open through the use
case, mark read, sanitize and render all five messages as text) against `notmuch show --format=text
--entire-thread=true thread:ID` (its index read, the messages parsed from the Maildir, the text part
printed; no sanitizing). Wall time per process from spawn to exit. notmuch comes from Debian: it is
installed when missing. Prints one JSON object.

    scripts/bench/thread_open_peers.py [--tern .build/release/tern] [--user bob] [--runs 50]
"""
import argparse
import imaplib
import json
import os
import shutil
import ssl
import statistics
import subprocess
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime

from sync_peers import settings  # the test servers' ports and credentials, as `scripts/mailservers env` prints them

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def thread_messages(stamp, address):
    """Five messages of one thread, oldest first, as bytes."""
    start = datetime.now(timezone.utc) - timedelta(hours=2)
    root = f"<bench-{stamp}-0@example.org>"
    messages, history = [], ""
    for index in range(5):
        message = EmailMessage()
        message["From"] = f"Person {index} <person{index}@example.org>"
        message["To"] = address
        message["Subject"] = f"Quarterly plan {stamp}" if index == 0 else f"Re: Quarterly plan {stamp}"
        message["Message-ID"] = f"<bench-{stamp}-{index}@example.org>"
        message["Date"] = format_datetime(start + timedelta(minutes=10 * index))
        if index:
            message["In-Reply-To"] = f"<bench-{stamp}-{index - 1}@example.org>"
            message["References"] = " ".join(f"<bench-{stamp}-{i}@example.org>" for i in range(index))
        own = "\n".join(f"Point {n} of message {index}: the numbers for the quarter look steady." for n in range(12))
        text = own + ("\n\n" + "\n".join("> " + line for line in history.splitlines()) if history else "")
        message.set_content(text)
        rows = "".join(f'<tr><td style="padding:4px;color:#333">Point {n}</td><td class="v">{n * 17}</td></tr>' for n in range(12))
        quote = f'<blockquote type="cite">{history.replace(chr(10), "<br>")}</blockquote>' if history else ""
        html = (f'<html><head><style>.v {{ font-weight: bold; color: #064 }} td {{ font-family: sans-serif }}</style></head>'
                f'<body><p>Hello,</p><table>{rows}</table><p><a href="https://example.org/report/{index}">Report</a></p>'
                f'<img src="https://tracker.example/pixel.gif?u={index}" width="1" height="1">{quote}</body></html>')
        message.add_alternative(html, subtype="html")
        messages.append(message.as_bytes())
        history = own
    return root, messages


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def timed_runs(argv, env, runs):
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds.append(time.perf_counter() - start)
    return {"p50Milliseconds": round(statistics.median(seconds) * 1000, 1),
            "p99Milliseconds": round(percentile(seconds, 0.99) * 1000, 1), "runs": runs}


def ensure_notmuch():
    if shutil.which("notmuch"):
        return
    subprocess.run(["apt-get", "install", "-y", "-q", "notmuch"], check=True, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tern", default=os.path.join(ROOT, ".build", "release", "tern"))
    parser.add_argument("--user", default="bob")
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    ensure_notmuch()
    s = settings()
    address = f"{args.user}@{s['TERN_TEST_DOMAIN']}"
    stamp = uuid.uuid4().hex[:10]
    _, messages = thread_messages(stamp, address)
    scratch = tempfile.mkdtemp(prefix="tern-thread-peers-")
    try:
        context = ssl.create_default_context(cafile=s["TERN_TEST_CA"])
        imap = imaplib.IMAP4_SSL("127.0.0.1", int(s["TERN_IMAPS_PORT"]), ssl_context=context)
        imap.login(address, s["TERN_TEST_PASSWORD"])
        for raw in messages:
            imap.append("INBOX", "(\\Seen)", None, raw)
        imap.logout()

        home = os.path.join(scratch, "tern-home")
        env = dict(os.environ, TERN_HOME=home, TERN_NO_BACKGROUND_PUSH="1")
        subprocess.run([args.tern, "account", "add", args.user, "--email", address,
                        "--imap", f"127.0.0.1:{s['TERN_IMAPS_PORT']}", "--smtp", f"127.0.0.1:{s['TERN_SMTPS_PORT']}",
                        "--password-command", f"cat {s['TERN_TEST_PASSWORD_FILE']}", "--ca-file", s["TERN_TEST_CA"],
                        "--bodies", "all"], env=env, check=True, capture_output=True)
        subprocess.run([args.tern, "sync", args.user], env=env, check=True, capture_output=True)
        hits = json.loads(subprocess.run([args.tern, "search", stamp, "--json"], env=env, check=True, capture_output=True).stdout)
        thread_id = f"t{hits[0]['threadId']}"
        shown = json.loads(subprocess.run([args.tern, "thread", thread_id, "--expand-all", "--json"], env=env, check=True,
                                          capture_output=True).stdout)
        assert shown["messageCount"] == 5 and all(m.get("html") or m.get("text") for m in shown["messages"]), "the thread is cached whole"

        maildir = os.path.join(scratch, "Maildir")
        for sub in ("cur", "new", "tmp"):
            os.makedirs(os.path.join(maildir, sub))
        for index, raw in enumerate(messages):
            with open(os.path.join(maildir, "cur", f"{stamp}.{index}:2,S"), "wb") as f:
                f.write(raw)
        config = os.path.join(scratch, "notmuch-config")
        with open(config, "w") as f:
            f.write(f"[database]\npath={maildir}\n[user]\nname=Bench\nprimary_email={address}\n[new]\ntags=\n[maildir]\nsynchronize_flags=false\n")
        notmuch_env = dict(os.environ, NOTMUCH_CONFIG=config)
        subprocess.run(["notmuch", "new", "--quiet"], env=notmuch_env, check=True, capture_output=True)
        notmuch_thread = subprocess.run(["notmuch", "search", "--output=threads", f"subject:{stamp}"], env=notmuch_env, check=True,
                                        capture_output=True, text=True).stdout.split()
        assert len(notmuch_thread) == 1, notmuch_thread
        shown = subprocess.run(["notmuch", "show", "--format=text", "--entire-thread=true", notmuch_thread[0]], env=notmuch_env,
                               check=True, capture_output=True, text=True).stdout
        assert shown.count("\x0cmessage{") == 5, "notmuch shows the five messages"

        tern_runs = timed_runs([args.tern, "thread", thread_id, "--expand-all"], env, args.runs)
        notmuch_runs = timed_runs(["notmuch", "show", "--format=text", "--entire-thread=true", notmuch_thread[0]], notmuch_env, args.runs)
        version = subprocess.run(["notmuch", "--version"], capture_output=True, text=True).stdout.strip()
        print(json.dumps({"tern thread": tern_runs, version: notmuch_runs}, indent=2))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
