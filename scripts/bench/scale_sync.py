#!/usr/bin/env python3
"""Tern's cost curve against mailbox size, next to mbsync in the same run (issue 38). One command:

    scripts/bench/scale_sync.py [--sizes 2000 10000 100000] [--runs 2] [--million 1000000] [--resume-size N]
                                [--user dave] [--tern .build/release/tern] [--out .build/scale-results.jsonl]

For each size, `scripts/gen_mailbox.py` writes a 20-year mailbox of that many messages into the user's Maildir in
the test Dovecot (replacing the last one), then Tern and mbsync sync every folder but All Mail and Important from
nothing, alternating, `--runs` times each after one untimed warm-up of each (so Dovecot's index and cache and the
page cache are as warm for both): Tern with `--sync-window-days 36500 --bodies all` (headers, BODYSTRUCTURE, text
bodies, attachment metadata, dedup, threading, FTS5, contacts), mbsync 1.4 to a Maildir (whole messages), exactly as
`scripts/bench/sync_peers.py` runs them. Wall time and peak RSS from wait4() (what `/usr/bin/time -v` reports), the
store's size per message (tern.sqlite with its WAL) and the Maildir's.

`--million N` then writes N messages and times Tern's headers-only first sync (`--bodies none`), and
`--resume-size N` (default: the million's size) checks that a first sync resumes after kill -9: through a relay that
ends TLS and reads Tern's commands, Tern is killed at a random point (seeded) and run again to the end; every UID
asked for in a header FETCH (`BODY.PEEK[HEADER]`) is counted, and what was asked twice is reported (the goal: at most
one batch). `--generated FILE` takes the mailbox already in Dovecot (the JSON line `gen_mailbox.py` printed for
it) instead of writing it again; `--keep-home DIR` keeps the headers-only store there (the read side measured on it
after); `--resumed-home DIR --resume-seconds S` checks a store whose first sync was killed (kill -9) already, as
far as S seconds of the next run get: every header UID that run asks for that the store holds already is counted
(the goal: none, beyond the batch in flight at the kill); `--headers-seconds S` skips the headers-only run before the kill -9 check (S: its time, measured before).
Each measurement is appended to `--out` as a JSON line; `scripts/bench/scale_plot.py` draws them.
"""
import argparse
import asyncio
import json
import os
import random
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sync_peers import ROOT, mbsync_config, settings  # noqa: E402


def wait_measured(process):
    """(seconds, peak RSS MB, exit code) of a started process."""
    start = time.perf_counter()
    _, status, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def directory_bytes(path):
    total = 0
    for directory, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except FileNotFoundError:
                pass
    return total


def add_account(tern, s, user, home, imap, bodies):
    subprocess.run([tern, "account", "add", user, "--email", f"{user}@{s['TERN_TEST_DOMAIN']}", "--imap", imap,
                    "--smtp", f"127.0.0.1:{s['TERN_SMTPS_PORT']}", "--password-command", f"cat {s['TERN_TEST_PASSWORD_FILE']}",
                    "--ca-file", s["TERN_TEST_CA"], "--sync-window-days", "36500", "--bodies", bodies],
                   env=dict(os.environ, TERN_HOME=home), check=True, capture_output=True)


def stored_messages(tern, home):
    """Distinct emails and folder copies in the store, from `tern status --json`'s folder counts."""
    out = subprocess.run([tern, "folders", "--json"], env=dict(os.environ, TERN_HOME=home), capture_output=True, text=True)
    try:
        folders = json.loads(out.stdout)
        return sum(f.get("messageCount", 0) for f in folders)
    except (ValueError, AttributeError):
        return None


def run_tern(tern, s, user, scratch, bodies="all", imap=None, env_extra=None, home=None):
    home = home or os.path.join(scratch, "tern-home")
    add_account(tern, s, user, home, imap or f"127.0.0.1:{s['TERN_IMAPS_PORT']}", bodies)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen([tern, "sync", user], env=dict(os.environ, TERN_HOME=home, **(env_extra or {})), stdout=out, stderr=err)
        seconds, rss, code = wait_measured(process)
        out.seek(0)
        err.seek(0)
        report, errors = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if code != 0:
        raise RuntimeError(f"tern sync failed: {errors[-2000:]}")
    store = sum(os.path.getsize(os.path.join(home, n)) for n in os.listdir(home) if n.startswith("tern.sqlite"))
    # The report's "first page in N ms": the Inbox's newest 30 headers stored, from the start of the sync.
    first_page = re.search(r"first page in (\d+) ms", report)
    return {"seconds": seconds, "rss_mb": rss, "store_bytes": store, "copies": stored_messages(tern, home),
            "first_page_ms": int(first_page.group(1)) if first_page else None}


def run_mbsync(s, user, scratch):
    process = subprocess.Popen(["mbsync", "-c", mbsync_config(s, user, scratch), "-a", "-q"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds, rss, code = wait_measured(process)
    if code != 0:
        raise RuntimeError(f"mbsync failed: {process.stderr.read().decode(errors='replace')[-2000:]}")
    return {"seconds": seconds, "rss_mb": rss, "store_bytes": directory_bytes(os.path.join(scratch, "mbsync-maildir"))}


def generate(user, count, seed, generated=None):
    if generated:
        with open(generated) as f:
            return json.loads(f.read().strip().splitlines()[-1])
    out = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_mailbox.py"), "--user", user, "--count", str(count),
                          "--seed", str(seed)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


# The tern binary measured, written into each entry (its commit may not be the checkout's).
BINARY = None


def record(out, entry):
    entry = dict(entry, date=time.strftime("%Y-%m-%d %H:%M"), commit=commit(), binary=BINARY, load=os.getloadavg()[0])
    with open(out, "a") as f:
        f.write(json.dumps(entry) + "\n")
    print(json.dumps(entry), flush=True)


def commit():
    return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()


class CommandCountingRelay:
    """127.0.0.1:<port> with TLS (the test server's certificate) → the test Dovecot over TLS, reading the client's
    commands: per connection the mailbox it selected, and every UID a `UID FETCH` asked for, by mailbox, apart for
    header fetches (`BODY.PEEK[HEADER]`) and the rest. Tern must not compress (TERN_IMAP_DISABLE_CAPABILITIES)."""

    SELECT = re.compile(rb'^\S+ (?:SELECT|EXAMINE) ("(?:[^"\\]|\\.)*"|\S+)', re.I)
    FETCH = re.compile(rb'^\S+ UID FETCH (\S+) (.*)$', re.I)

    def __init__(self, s):
        self.s = s
        self.header_uids = {}  # mailbox → {uid: times asked}
        self.other_fetched = 0
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        threading.Thread(target=self._run, args=(ready,), daemon=True).start()
        ready.wait()

    def _run(self, ready):
        asyncio.set_event_loop(self.loop)
        tls = os.path.join(self.s["TERN_MAILSERVERS_DIR"], "tls")
        server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        server_context.load_cert_chain(os.path.join(tls, "server.crt"), os.path.join(tls, "server.key"))
        self.client_context = ssl.create_default_context(cafile=self.s["TERN_TEST_CA"])
        self.server = self.loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0, ssl=server_context))
        self.port = self.server.sockets[0].getsockname()[1]
        ready.set()
        self.loop.run_forever()

    @staticmethod
    def uids(text):
        for part in text.split(b","):
            low, _, high = part.partition(b":")
            if high == b"*" or low == b"*":
                continue
            a, b = int(low), int(high or low)
            yield from range(min(a, b), max(a, b) + 1)

    def _command(self, line, state):
        if match := self.SELECT.match(line):
            state["mailbox"] = match.group(1).strip(b'"')
        elif match := self.FETCH.match(line):
            uids = list(self.uids(match.group(1)))
            if b"BODY.PEEK[HEADER]" in match.group(2).upper():
                asked = self.header_uids.setdefault(state.get("mailbox"), {})
                for uid in uids:
                    asked[uid] = asked.get(uid, 0) + 1
            else:
                self.other_fetched += len(uids)

    async def _client(self, reader, writer):
        server_reader, server_writer = await asyncio.open_connection(
            "127.0.0.1", int(self.s["TERN_IMAPS_PORT"]), ssl=self.client_context, server_hostname="localhost")
        state = {}

        async def upward():
            buffered = b""
            try:
                while data := await reader.read(65536):
                    server_writer.write(data)
                    buffered += data
                    while b"\r\n" in buffered:
                        line, buffered = buffered.split(b"\r\n", 1)
                        self._command(line, state)
                    await server_writer.drain()
            finally:
                server_writer.close()

        async def downward():
            try:
                while data := await server_reader.read(262144):
                    writer.write(data)
                    await writer.drain()
            finally:
                writer.close()

        await asyncio.gather(upward(), downward(), return_exceptions=True)

    def summary(self):
        asked = sum(sum(c.values()) for c in self.header_uids.values())
        distinct = sum(len(c) for c in self.header_uids.values())
        return {"header_uids_asked": asked, "distinct": distinct, "asked_twice": asked - distinct, "other_fetch_uids": self.other_fetched}


def resume_check(args, s, out, size, expected_seconds):
    """A first headers-only sync killed (SIGKILL) at a seeded random point, then run to the end: UIDs asked twice."""
    relay = CommandCountingRelay(s)
    scratch = tempfile.mkdtemp(prefix="tern-bench-scale-resume-", dir=args.scratch)
    try:
        home = os.path.join(scratch, "tern-home")
        add_account(args.tern, s, args.user, home, f"127.0.0.1:{relay.port}", "none")
        env = dict(os.environ, TERN_HOME=home, TERN_IMAP_DISABLE_CAPABILITIES="COMPRESS=DEFLATE")
        kill_after = random.Random(args.seed).uniform(0.15, 0.85) * expected_seconds
        process = subprocess.Popen([args.tern, "sync", args.user], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            process.wait(timeout=kill_after)
            killed = False
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            killed = True
        before = relay.summary()
        second = subprocess.Popen([args.tern, "sync", args.user], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        seconds, rss, code = wait_measured(second)
        if code != 0:
            raise RuntimeError(f"tern sync after the kill failed: {second.stderr.read().decode(errors='replace')[-2000:]}")
        record(out, {"kind": "resume", "size": size, "killed": killed, "killed_after_s": round(kill_after, 1),
                     "before_kill": before, **relay.summary(), "second_run_s": seconds, "second_run_rss_mb": rss,
                     "copies": stored_messages(args.tern, home)})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def stored_uids(home):
    """(folder path, UID) of every message the store holds."""
    import sqlite3
    with sqlite3.connect(f"file:{os.path.join(home, 'tern.sqlite')}?mode=ro", uri=True) as db:
        return {(path, uid) for path, uid in db.execute("SELECT f.path, ef.imapUID FROM emailFolder ef JOIN folder f ON f.id = ef.folderId")}


def resumed_run(args, s, out):
    """The run after a kill -9, through the relay, for --resume-seconds (killed again then, or to its end): header
    UIDs asked that the store held already, and the store's growth."""
    home = args.resumed_home
    before = stored_uids(home)
    relay = CommandCountingRelay(s)
    env = dict(os.environ, TERN_HOME=home, TERN_IMAP_DISABLE_CAPABILITIES="COMPRESS=DEFLATE")
    def imap_port(port):  # `tern account set` does not change servers; the scratch store is edited
        import sqlite3
        with sqlite3.connect(os.path.join(home, "tern.sqlite")) as db:
            db.execute("UPDATE account SET imapPort = ? WHERE name = ?", (port, args.user))

    imap_port(relay.port)
    try:
        start = time.perf_counter()
        process = subprocess.Popen([args.tern, "sync", args.user], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            process.wait(timeout=args.resume_seconds)
            finished = True
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            finished = False
        seconds = time.perf_counter() - start
    finally:
        imap_port(int(s["TERN_IMAPS_PORT"]))
    asked_again = sum(1 for mailbox, uids in relay.header_uids.items() for uid in uids
                      if (mailbox.decode(errors="replace") if mailbox else None, uid) in before)
    after = stored_uids(home)
    record(out, {"kind": "resumed", "stored_before": len(before), "stored_after": len(after), "seconds": round(seconds, 1),
                 "finished": finished, **relay.summary(), "header_uids_stored_before_asked_again": asked_again})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000, 10000, 100000])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--warm", type=int, default=1, help="untimed runs of each tool before the timed ones")
    parser.add_argument("--million", type=int, default=0, help="also the headers-only first sync of this many messages")
    parser.add_argument("--resume-size", type=int, default=None, help="the kill -9 check on this many (default: --million)")
    parser.add_argument("--user", default="dave")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--tern", default=os.path.join(ROOT, ".build", "release", "tern"))
    parser.add_argument("--out", default=os.path.join(ROOT, ".build", "scale-results.jsonl"))
    parser.add_argument("--generated", help="the JSON gen_mailbox.py printed for the mailbox already in Dovecot: not written again")
    parser.add_argument("--keep-home", help="keep the headers-only store in this TERN_HOME (must not exist)")
    parser.add_argument("--headers-seconds", type=float, help="the headers-only sync's time at the resume size, measured before: not run again")
    parser.add_argument("--resumed-home", help="a TERN_HOME whose first sync was killed: check the next run (--resume-seconds)")
    parser.add_argument("--resume-seconds", type=float, default=600)
    parser.add_argument("--scratch", default=os.path.join(ROOT, ".build"), help="where the scratch stores and Maildirs go")
    args = parser.parse_args()
    global BINARY
    BINARY = args.tern
    s = settings()
    if args.resumed_home:
        return resumed_run(args, s, args.out)
    for size in args.sizes:
        mailbox = generate(args.user, size, args.seed)
        record(args.out, {"kind": "generated", "size": size, **{k: mailbox[k] for k in ("messages", "threads", "bytes", "seconds")}})
        for run in range(-args.warm, args.runs):
            for tool in ("tern", "mbsync"):
                scratch = tempfile.mkdtemp(prefix=f"tern-bench-scale-{tool}-", dir=args.scratch)
                try:
                    result = run_tern(args.tern, s, args.user, scratch) if tool == "tern" else run_mbsync(s, args.user, scratch)
                finally:
                    shutil.rmtree(scratch, ignore_errors=True)
                if run >= 0:
                    record(args.out, {"kind": "full", "tool": tool, "size": size, "messages": mailbox["messages"], "run": run, **result})
    resume_size = args.resume_size if args.resume_size is not None else args.million
    if args.million:
        mailbox = generate(args.user, args.million, args.seed, args.generated)
        if not args.generated:
            record(args.out, {"kind": "generated", "size": args.million, **{k: mailbox[k] for k in ("messages", "threads", "bytes", "seconds")}})
        if args.headers_seconds is None:
            result = headers_only(args, s)
            record(args.out, {"kind": "headers", "tool": "tern", "size": args.million, "messages": mailbox["messages"], **result})
        if resume_size == args.million:
            resume_check(args, s, args.out, args.million, args.headers_seconds or result["seconds"])
    elif resume_size:
        mailbox = generate(args.user, resume_size, args.seed, args.generated)
        if args.headers_seconds is None:
            result = headers_only(args, s)
            record(args.out, {"kind": "headers", "tool": "tern", "size": resume_size, "messages": mailbox["messages"], **result})
        resume_check(args, s, args.out, resume_size, args.headers_seconds or result["seconds"])


def headers_only(args, s):
    """The headers-only first sync, its store kept in --keep-home when given."""
    scratch = tempfile.mkdtemp(prefix="tern-bench-scale-headers-", dir=args.scratch)
    try:
        return run_tern(args.tern, s, args.user, scratch, bodies="none", home=args.keep_home)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
