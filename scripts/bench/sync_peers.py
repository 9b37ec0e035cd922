#!/usr/bin/env python3
"""Full sync of one account from the local Dovecot, Tern next to mbsync and offlineimap (issue 6).

Each tool starts from nothing (a scratch TERN_HOME / Maildir) and syncs every folder but All Mail and
Important (which Tern never syncs: FR-SYNC-01) with message bodies: Tern with `--bodies all` (text bodies,
attachment metadata, threading, full-text index, contacts), mbsync and offlineimap to Maildir (whole
messages). Wall time and peak RSS come from wait4() of each child. Prints a Markdown table row per tool.

    scripts/bench/sync_peers.py --user carol [--tern .build/release/tern] [--runs 1]
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def settings():
    out = subprocess.run([os.path.join(ROOT, "scripts", "mailservers"), "env"], check=True, capture_output=True, text=True).stdout
    env = {}
    for line in out.splitlines():
        key, _, value = line.partition("=")
        env[key] = value.strip('"')
    return env


class JSONLines:
    """The JSON objects a process writes one per line (`tern sync --watch --json`), as they come."""

    def __init__(self, stream):
        self.stream, self.buffered = stream, b""

    def read(self, wait):
        """The objects complete within `wait` seconds (maybe none); None once the stream ended."""
        import select
        ready, _, _ = select.select([self.stream], [], [], wait)
        if ready:
            chunk = self.stream.read1(65536)
            if not chunk:
                return None
            self.buffered += chunk
        events = []
        while b"\n" in self.buffered:
            line, self.buffered = self.buffered.split(b"\n", 1)
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
        return events


def timed(argv, env=None, cwd=None):
    """Runs argv; returns (seconds, peak RSS in MB), raising on failure."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    stderr = process.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{argv[0]} failed: {stderr[-2000:]}")
    return seconds, usage.ru_maxrss / 1024


def run_tern(tern, s, user, scratch):
    home = os.path.join(scratch, "tern-home")
    env = dict(os.environ, TERN_HOME=home)
    subprocess.run([tern, "account", "add", user, "--email", f"{user}@{s['TERN_TEST_DOMAIN']}",
                    "--imap", f"127.0.0.1:{s['TERN_IMAPS_PORT']}", "--smtp", f"127.0.0.1:{s['TERN_SMTPS_PORT']}",
                    "--password-command", f"cat {s['TERN_TEST_PASSWORD_FILE']}", "--ca-file", s["TERN_TEST_CA"],
                    "--sync-window-days", "36500", "--bodies", "all"], env=env, check=True, capture_output=True)
    result = timed([tern, "sync", user], env=env)
    counts = subprocess.run([tern, "status", "--json"], env=env, check=True, capture_output=True, text=True).stdout
    return result, counts


def run_mbsync(s, user, scratch):
    return timed(["mbsync", "-c", mbsync_config(s, user, scratch), "-a", "-q"])


def mbsync_config(s, user, scratch):
    """An mbsyncrc pulling every folder but All Mail and Important to a Maildir under scratch."""
    maildir = os.path.join(scratch, "mbsync-maildir")
    os.makedirs(maildir)
    config = os.path.join(scratch, "mbsyncrc")
    with open(config, "w") as f:
        f.write(f"""IMAPAccount bench
Host localhost
Port {s['TERN_IMAPS_PORT']}
User {user}@{s['TERN_TEST_DOMAIN']}
PassCmd "cat {s['TERN_TEST_PASSWORD_FILE']}"
SSLType IMAPS
CertificateFile {s['TERN_TEST_CA']}

IMAPStore remote
Account bench

MaildirStore local
Path {maildir}/
Inbox {maildir}/INBOX
SubFolders Verbatim

Channel bench
Far :remote:
Near :local:
Patterns * !"[Gmail]/All Mail" !"[Gmail]/Important"
Create Near
Sync Pull
SyncState *
""")
    return config


def run_offlineimap(s, user, scratch):
    maildir = os.path.join(scratch, "offlineimap-maildir")
    metadata = os.path.join(scratch, "offlineimap-meta")
    config = os.path.join(scratch, "offlineimaprc")
    with open(config, "w") as f:
        f.write(f"""[general]
accounts = bench
metadata = {metadata}
ui = quiet

[Account bench]
localrepository = local
remoterepository = remote

[Repository local]
type = Maildir
localfolders = {maildir}

[Repository remote]
type = IMAP
remotehost = localhost
remoteport = {s['TERN_IMAPS_PORT']}
remoteuser = {user}@{s['TERN_TEST_DOMAIN']}
remotepasseval = open("{s['TERN_TEST_PASSWORD_FILE']}").read().strip()
ssl = yes
sslcacertfile = {s['TERN_TEST_CA']}
readonly = True
folderfilter = lambda name: name not in ["[Gmail]/All Mail", "[Gmail]/Important"]
""")
    return timed(["offlineimap", "-c", config, "-o", "-u", "quiet"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--user", default="carol")
    parser.add_argument("--tern", default=os.path.join(ROOT, ".build", "release", "tern"))
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--skip", action="append", default=[], help="tern, mbsync or offlineimap")
    args = parser.parse_args()
    s = settings()
    print("| tool | run | seconds | peak RSS |")
    print("|---|---|---|---|")
    for run in range(1, args.runs + 1):
        for tool in ["tern", "mbsync", "offlineimap"]:
            if tool in args.skip:
                continue
            scratch = tempfile.mkdtemp(prefix=f"tern-bench-sync-{tool}-")
            try:
                if tool == "tern":
                    (seconds, rss), counts = run_tern(args.tern, s, args.user, scratch)
                elif tool == "mbsync":
                    seconds, rss = run_mbsync(s, args.user, scratch)
                else:
                    seconds, rss = run_offlineimap(s, args.user, scratch)
                print(f"| {tool} | {run} | {seconds:.2f} | {rss:.0f} MB |", flush=True)
                if tool == "tern":
                    print(f"<!-- tern store: {' '.join(counts.split())[:400]} -->", flush=True)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
