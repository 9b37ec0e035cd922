#!/usr/bin/env python3
"""A store of 1,000,000 messages in minutes, and the read side timed on it (issue 38).

A million messages through IMAP take a long first sync; the read side's costs (`tern threads`, opening a thread,
`tern search`, the folder list) depend on what the store holds, not on how it got there. So a store synced from the
test Dovecot (`scripts/gen_mailbox.py`'s mailbox, `tern sync`) is multiplied in SQLite: each copy of every email,
thread, thread node, folder copy, attachment and search row with its own ids, Message-IDs, UIDs and dates moved by
a few minutes per copy, as a sync of that many more messages would have stored them.

    scripts/bench/scale_store.py grow TERN_HOME --to 1000000            # in place
    scripts/bench/scale_store.py time TERN_HOME [--tern .build/release/tern] [--runs 20] [--out results.jsonl]

`time` runs whole `tern` processes (start, store opening, query, output) and prints p50 and p99 per command: the
unified Inbox's first 50 threads, the next page, a cached thread opened, search for words and operators; then the
same SQL in the sqlite3 shell, SQLite's own time (the bound), and each statement's EXPLAIN QUERY PLAN.
"""
import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time


def grow(home, target):
    path = os.path.join(home, "tern.sqlite")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=OFF")
    (emails,) = db.execute("SELECT COUNT(*) FROM email").fetchone()
    copies = max(0, -(-target // emails) - 1)
    maxima = {table: db.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}").fetchone()[0]
              for table in ("email", "thread", "threadNode", "emailFolder", "attachment")}
    (max_uid,) = db.execute("SELECT MAX(imapUID) FROM emailFolder").fetchone()
    uid_step = 10 ** len(str(max_uid))
    email_columns = [r[1] for r in db.execute("PRAGMA table_info(email)")]
    thread_columns = [r[1] for r in db.execute("PRAGMA table_info(thread)")]
    dates = {"dateSent", "dateReceived", "latestDate", "earliestDate"}
    started = time.perf_counter()
    for k in range(1, copies + 1):
        shift = f"'-{k} minutes'"

        def moved(column, table_alias):
            if column in dates:
                return f"strftime('%Y-%m-%d %H:%M:%f', {table_alias}.\"{column}\", {shift})"
            return f"{table_alias}.\"{column}\""

        db.execute("BEGIN")
        # Threads and nodes first: emails point at them.
        values = []
        for c in thread_columns:
            if c == "id":
                values.append(f"t.id + {maxima['thread'] * k}")
            elif c == "component":
                values.append(f"t.component + {maxima['threadNode'] * k}")
            else:
                values.append(moved(c, "t"))
        db.execute(f"INSERT INTO thread ({', '.join(chr(34) + c + chr(34) for c in thread_columns)}) "
                   f"SELECT {', '.join(values)} FROM thread t WHERE t.id <= {maxima['thread']}")
        db.execute(f"INSERT INTO threadNode (id, accountId, messageId, component, isPresent, hasParent) "
                   f"SELECT n.id + {maxima['threadNode'] * k}, n.accountId, n.messageId || '.{k}', n.component + {maxima['threadNode'] * k}, "
                   f"n.isPresent, n.hasParent FROM threadNode n WHERE n.id <= {maxima['threadNode']}")
        values = []
        for c in email_columns:
            if c == "id":
                values.append(f"e.id + {maxima['email'] * k}")
            elif c == "threadId":
                values.append(f"e.threadId + {maxima['thread'] * k}")
            elif c in ("messageId", "headerMessageId", "dedupKey"):
                values.append(f"e.\"{c}\" || '.{k}'")
            else:
                values.append(moved(c, "e"))
        db.execute(f"INSERT INTO email ({', '.join(chr(34) + c + chr(34) for c in email_columns)}) "
                   f"SELECT {', '.join(values)} FROM email e WHERE e.id <= {maxima['email']}")
        db.execute(f"INSERT INTO emailFolder (id, emailId, folderId, imapUID, modSeq, serverFlags) "
                   f"SELECT ef.id + {maxima['emailFolder'] * k}, ef.emailId + {maxima['email'] * k}, ef.folderId, "
                   f"ef.imapUID + {uid_step * k}, ef.modSeq, ef.serverFlags FROM emailFolder ef WHERE ef.id <= {maxima['emailFolder']}")
        db.execute(f"INSERT INTO threadFolder (threadId, folderId, latestDate, messageCount, unreadCount) "
                   f"SELECT tf.threadId + {maxima['thread'] * k}, tf.folderId, strftime('%Y-%m-%d %H:%M:%f', tf.latestDate, {shift}), "
                   f"tf.messageCount, tf.unreadCount FROM threadFolder tf WHERE tf.threadId <= {maxima['thread']}")
        db.execute(f"INSERT INTO attachment (id, emailId, partId, filename, mimeType, sizeBytes, contentId, isInline, transferEncoding) "
                   f"SELECT a.id + {maxima['attachment'] * k}, a.emailId + {maxima['email'] * k}, a.partId, a.filename, a.mimeType, "
                   f"a.sizeBytes, a.contentId, a.isInline, a.transferEncoding FROM attachment a WHERE a.id <= {maxima['attachment']}")
        db.execute(f"INSERT INTO searchIndex (rowid, subject, sender, recipients, content) "
                   f"SELECT s.rowid + {maxima['email'] * k}, s.subject, s.sender, s.recipients, s.content FROM searchIndex s "
                   f"WHERE s.rowid <= {maxima['email']}")
        db.execute(f"INSERT INTO searchIndexState (emailId, indexedDate, failureCount, lastError) "
                   f"SELECT s.emailId + {maxima['email'] * k}, s.indexedDate, s.failureCount, s.lastError FROM searchIndexState s "
                   f"WHERE s.emailId <= {maxima['email']}")
        db.execute("COMMIT")
        if k % 20 == 0:
            print(f"copy {k}/{copies}: {emails * (k + 1):,} emails, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    for table in ("email", "thread", "threadNode", "emailFolder", "attachment"):
        db.execute("UPDATE sqlite_sequence SET seq = (SELECT MAX(id) FROM " + table + ") WHERE name = ?", (table,))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    (total,) = db.execute("SELECT COUNT(*) FROM email").fetchone()
    print(json.dumps({"emails": total, "copies": copies, "seconds": round(time.perf_counter() - started, 1),
                      "store_bytes": os.path.getsize(path)}))


def whole_process(argv, env, runs):
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run(argv, env=env, capture_output=True)
        samples.append((time.perf_counter() - start) * 1000)
        if out.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {out.stderr.decode(errors='replace')[-1000:]}")
    samples.sort()
    return {"p50_ms": round(statistics.median(samples), 1), "p99_ms": round(samples[min(len(samples) - 1, int(len(samples) * 0.99))], 1),
            "min_ms": round(samples[0], 1)}, out.stdout


def sqlite_time(path, sql, runs=5):
    """SQLite's own time for a statement (best of runs), and its plan."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    best = None
    for _ in range(runs):
        start = time.perf_counter()
        db.execute(sql).fetchall()
        elapsed = (time.perf_counter() - start) * 1000
        best = elapsed if best is None else min(best, elapsed)
    plan = "; ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN " + sql))
    return round(best, 2), plan


def time_store(args):
    env = dict(os.environ, TERN_HOME=args.home)
    path = os.path.join(args.home, "tern.sqlite")
    (emails,) = sqlite3.connect(f"file:{path}?mode=ro", uri=True).execute("SELECT COUNT(*) FROM email").fetchone()
    results = {"kind": "read", "emails": emails, "tern": args.tern, "date": time.strftime("%Y-%m-%d %H:%M"), "load": os.getloadavg()[0]}
    first, output = whole_process([args.tern, "threads", "--limit", "50", "--json"], env, args.runs)
    threads = json.loads(output)
    results["threads --limit 50"] = first
    newest = threads[0]["id"]
    # Opening a cached thread: the newest thread with more than one message, as a person clicks it.
    longest = max(threads, key=lambda t: t.get("messageCount", 1))
    results["thread (open)"] = whole_process([args.tern, "thread", f"t{longest['id']}", "--json"], env, args.runs)[0]
    results["folders"] = whole_process([args.tern, "folders", "--json"], env, args.runs)[0]
    for query in args.queries:
        results[f"search {query}"] = whole_process([args.tern, "search", query, "--limit", "50", "--json"], env, args.runs)[0]
    results["sqlite"] = {}
    for name, sql in [
        ("one Inbox's first 50 threads", "SELECT threadId FROM threadFolder WHERE folderId = (SELECT id FROM folder WHERE folderType = 'inbox' LIMIT 1) "
                                         "ORDER BY latestDate DESC, threadId DESC LIMIT 50"),
        ("a thread's messages", f"SELECT id FROM email WHERE threadId = {longest['id']} ORDER BY COALESCE(dateSent, dateReceived), id"),
        ("unread per folder", "SELECT ef.folderId, COUNT(*) FROM email e CROSS JOIN emailFolder ef ON ef.emailId = e.id WHERE e.isRead = 0 GROUP BY ef.folderId"),
        ("a word, newest 50", "SELECT rowid FROM searchIndex WHERE searchIndex MATCH 'budget' ORDER BY rowid DESC LIMIT 50"),
    ]:
        try:
            results["sqlite"][name] = sqlite_time(path, sql)
        except sqlite3.Error as error:
            results["sqlite"][name] = str(error)
    print(json.dumps(results, indent=1, ensure_ascii=False))
    if args.out:
        with open(args.out, "a") as f:
            f.write(json.dumps(results, ensure_ascii=False) + "\n")
    del newest


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grow")
    g.add_argument("home")
    g.add_argument("--to", type=int, default=1_000_000)
    t = sub.add_parser("time")
    t.add_argument("home")
    t.add_argument("--tern", default=".build/release/tern")
    t.add_argument("--runs", type=int, default=20)
    t.add_argument("--out")
    t.add_argument("--queries", nargs="*", default=["budget", "budget review", "from:maria", "has:attachment", "is:starred",
                                                    "in:inbox budget", "before:2015-01-01 budget", "newer_than:30d"])
    args = parser.parse_args()
    if args.command == "grow":
        grow(args.home, args.to)
    else:
        time_store(args)


if __name__ == "__main__":
    main()
