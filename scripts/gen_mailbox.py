#!/usr/bin/env python3
"""A 20-year mailbox of N messages written as Maildir files straight into the test Dovecot (issue 38).

IMAP APPEND of a million messages would take hours; like `scripts/bench/qresync_sync.py`, this writes the files
into the user's Maildir (`mail_location = maildir:~/Maildir:LAYOUT=fs`), where Dovecot finds them at the next
login. The same --seed, --count and --now give the same files byte for byte (names, contents, flags, dates), whatever
--jobs is: the threads are laid out first, one random generator per thread renders them.

What the mailbox holds, shaped like a person's mail since 2006:
- conversations with Message-ID, In-Reply-To and References (the person's replies in Sent), mailing-list threads
  up to a few hundred messages, newsletters, receipts, notifications and spam that thread alone;
- 20 years of dates, more mail each year (density rising linearly), each conversation over hours to weeks;
- sizes as mail has them: short plain replies with quotes, multipart/alternative with HTML, 20-60 KB newsletter
  HTML, attachments (PDF, JPEG, DOCX, XLSX, ZIP) of tens of KB to a few MB (capped by --max-attachment-kb);
- the spread of a Gmail account over folders: Inbox, Sent, Receipts, list and project folders, Trash, Spam;
  3% of messages are in two folders (a label), as Gmail's IMAP shows them (the same message twice);
- flags: old mail read, some starred, replied-to messages answered.
All Mail and Important stay empty (Tern never syncs them; the peers are told to skip them).

    scripts/gen_mailbox.py --user dave --count 100000 [--seed 38] [--now 2026-11-01] [--years 20] [--jobs 2]
    scripts/gen_mailbox.py --count 2000 --dump /tmp/maildir      # a Maildir of one's own, no server

The user's generated folders are replaced (with Dovecot's index files in them): no IMAP session of that user may be
open meanwhile. Prints one JSON object: messages, folders, bytes, seconds.
"""
import argparse
import base64
import binascii
import datetime as dt
import json
import multiprocessing
import os
import random
import shutil
import sys
import time

# Folder spread (share of conversations' messages) and what each holds. Paths as the gmail layout names them.
INBOX, SENT, TRASH, SPAM, RECEIPTS = "INBOX", "[Gmail]/Sent Mail", "[Gmail]/Trash", "[Gmail]/Spam", "Receipts"
LIST_FOLDERS = ["Lists/tern-dev", "Lists/debian-devel", "Lists/rust-users"]
PROJECT_FOLDERS = ["Work", "Work/Projects", "Family", "Travel"]
NEWSLETTERS = "Newsletters"
# Kinds of conversation: (kind, weight in conversations).
KINDS = [("person", 30), ("list", 10), ("newsletter", 22), ("receipt", 8), ("notification", 22), ("spam", 5), ("trash", 3)]
OWN = ("Dana Whitfield", "dave@tern.test")

FIRST = ["Maria", "John", "Priya", "Zoë", "Lars", "Ivan", "Yuki", "Wei", "Min-jun", "Ana", "Tomasz", "Sam", "Fatima",
         "Björn", "Olu", "Grace", "Mateo", "Aisha", "Noah", "Lena", "Ravi", "Chloé", "Kenji", "Sofia", "Emeka", "Hana"]
LAST = ["Schmidt", "Carter", "Natarajan", "Dubois", "Øvergaard", "Petrov", "Tanaka", "Zhang", "Kim", "García",
        "Kowalski", "O'Neil", "Al-Sayed", "Lindqvist", "Adeyemi", "Hopper", "Rossi", "Khan", "Meyer", "Novak"]
DOMAINS = ["example.com", "example.org", "example.de", "example.fr", "example.net", "mail.example.jp", "example.in"]
COMPANIES = ["acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "tyrell", "cyberdyne", "wonka"]
WORDS = ("the of and to a in is that for it as was with be by on not he this are or his from at which but have an "
         "they you were her she there been one all we their has would when if so no will more about can said up out "
         "them what some time could into only do new other people than then its also two first like just now over "
         "after way these how may because most many well our even back good where through much before year should "
         "very make between long being under while might work still think great same last down own place right "
         "budget review roadmap invoice meeting launch report schedule release draft contract travel flight hotel "
         "project deadline agenda minutes proposal feedback design build test deploy server client patch issue bug "
         "kernel package upstream debian rust compiler memory thread mailbox sync index search query cache storage "
         "family dinner weekend birthday holiday photos school garden recipe concert museum train ticket visa "
         "quarterly revenue forecast hiring onboarding offsite workshop slides summary decision action followup "
         "shipping order receipt payment refund subscription renewal account password security notice update").split()
TOPICS = ["Q{q} budget review", "Roadmap for {y}", "Trip to {city}", "Dinner on {day}", "Release {v} planning",
          "Contract renewal with {co}", "Hiring: {role}", "Photos from {city}", "Offsite agenda", "Build failures on {arch}",
          "Patch: fix {thing} in {module}", "[RFC] {thing} redesign", "Invoice {n} from {co}", "Moving day",
          "School pickup this week", "Kernel {v} regression", "Question about {thing}", "Flight {n} to {city}"]
CITIES = ["Lisbon", "Kyoto", "Oslo", "Nairobi", "Montréal", "Berlin", "Lima", "Hanoi", "Reykjavík", "Porto"]
THINGS = ["the cache", "mailbox sync", "search index", "login", "the scheduler", "memory usage", "the parser", "TLS"]
ROLES = ["backend engineer", "designer", "support lead", "data analyst"]
ATTACHMENTS = [("application/pdf", "pdf"), ("image/jpeg", "jpg"), ("application/zip", "zip"),
               ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"),
               ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx")]
DAY = 86_400
# Cumulative weights for a Zipf-like draw of words, so that some words are common and most rare.
WORD_WEIGHTS = []
_total = 0.0
for _rank in range(len(WORDS)):
    _total += 1.0 / (_rank + 1) ** 0.9
    WORD_WEIGHTS.append(_total)


def maildir_path(root, folder):
    """The folder's directory: LAYOUT=fs with INBOX=~/Maildir/INBOX."""
    return os.path.join(root, *folder.split("/"))


class Pool:
    """Random-looking base64 lines for attachments, made once from the seed and sliced per attachment."""

    def __init__(self, seed, megabytes=4):
        raw = random.Random(seed ^ 0x5EED).randbytes(megabytes * 1024 * 1024)
        text = base64.b64encode(raw).decode()
        self.lines = [text[i:i + 76] for i in range(0, len(text), 76)]

    def base64(self, rng, size):
        """About `size` bytes of the attachment as base64 lines (LF ends; Dovecot adds CR for IMAP)."""
        count = max(1, (size * 4 // 3) // 77)
        start = rng.randrange(0, len(self.lines) - 1)
        out = []
        while count > 0:
            take = min(count, len(self.lines) - start)
            out.extend(self.lines[start:start + take])
            count -= take
            start = 0
        return "\n".join(out)


def layout(seed, count, now, years):
    """The conversations: (kind, start time, number of messages, folder) until `count` message copies are made."""
    rng = random.Random(seed)
    end = now
    span = years * 365 * DAY
    kinds, weights = zip(*KINDS)
    cumulative = []
    total = 0
    for weight in weights:
        total += weight
        cumulative.append(total)
    threads = []
    made = 0
    while made < count:
        kind = rng.choices(kinds, cum_weights=cumulative)[0]
        # More mail each year: density rising linearly over the span.
        start = end - span + int(span * (rng.random() ** 0.5))
        if kind == "person":
            size = 1 + min(int(rng.expovariate(1 / 2.5)), 60)
            folder = INBOX if rng.random() < 0.6 else rng.choice(PROJECT_FOLDERS)
        elif kind == "list":
            size = 1 + min(int(rng.paretovariate(1.3)) - 1 + int(rng.expovariate(1 / 3)), 400)
            folder = rng.choice(LIST_FOLDERS)
        elif kind == "newsletter":
            size, folder = 1, (NEWSLETTERS if rng.random() < 0.5 else INBOX)
        elif kind == "receipt":
            size, folder = 1, RECEIPTS
        elif kind == "notification":
            size, folder = 1, INBOX
        elif kind == "spam":
            size, folder = 1, SPAM
        else:
            size, folder = 1 + int(rng.expovariate(1 / 1.5)), TRASH
        size = min(size, count - made)
        threads.append((kind, start, size, folder))
        made += size
    return threads


def words(rng, n):
    return " ".join(rng.choices(WORDS, cum_weights=WORD_WEIGHTS, k=n))


# Sentences drawn once (from the seed, in `main`); a message's text is a run of them from a random place, which
# costs one draw instead of one per word.
SENTENCES = []


def make_sentences(seed, count=50_000):
    rng = random.Random(seed ^ 0x7E47)
    out = []
    for _ in range(count):
        sentence = words(rng, rng.randint(6, 18))
        out.append(sentence[0].upper() + sentence[1:] + ".")
    return out


def paragraph_text(rng, sentences):
    start = rng.randrange(0, len(SENTENCES) - sentences)
    return " ".join(SENTENCES[start:start + sentences])


def wrapped(text, width=72):
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return "\n".join(lines)


def person(rng):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    domain = rng.choice(DOMAINS)
    return f"{first} {last}", f"{first.lower().replace('ë', 'e').replace('ö', 'o').replace('é', 'e')}.{last.lower().replace('ø', 'o').replace(chr(39), '')}@{domain}"


def encode_name(name):
    """RFC 2047 for a non-ASCII display name, as mail clients write it."""
    if name.isascii():
        return f'"{name}"' if any(c in name for c in ",.'") else name
    return "=?UTF-8?B?" + base64.b64encode(name.encode()).decode() + "?="


def header_date(seconds):
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%a, %d %b %Y %H:%M:%S +0000")


def received(rng, seconds, host):
    return (f"Received: from {host} ({host} [192.0.2.{rng.randint(1, 254)}])\n\tby mx.tern.test with ESMTPS id "
            f"{rng.getrandbits(48):012x}\n\tfor <{OWN[1]}>; {header_date(seconds)}\n")


def html_of(rng, text, heavy):
    """An HTML body: a layout table and styled paragraphs; `heavy` as newsletters are (tens of KB)."""
    rows = []
    for paragraph in text.split("\n\n"):
        rows.append(f'<tr><td style="padding:12px 24px;font-family:Helvetica,Arial,sans-serif;font-size:15px;'
                    f'line-height:22px;color:#333333">{paragraph}</td></tr>')
    if heavy:
        for index in range(rng.randint(6, 20)):
            rows.append(f'<tr><td style="padding:8px 24px"><table role="presentation" width="100%"><tr>'
                        f'<td width="120"><img src="https://cdn.news.example.com/i/{rng.getrandbits(40):010x}.jpg" '
                        f'width="120" height="80" alt=""></td><td style="padding-left:12px;font-size:14px">'
                        f'<a href="https://news.example.com/r/{rng.getrandbits(64):016x}?utm_source=newsletter&amp;'
                        f'utm_medium=email&amp;utm_campaign={index}" style="color:#0b57d0">{words(rng, 8)}</a><br>'
                        f'{paragraph_text(rng, 2)}</td></tr></table></td></tr>')
        rows.append(f'<tr><td><img src="https://t.news.example.com/open/{rng.getrandbits(64):016x}.gif" width="1" '
                    f'height="1" alt=""></td></tr>')
    body = "\n".join(rows)
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><style>body{margin:0;background:#f4f4f4}'
            '.wrap{max-width:640px;margin:0 auto;background:#ffffff}</style></head>\n<body><table role="presentation" '
            f'class="wrap" width="100%" cellpadding="0" cellspacing="0">\n{body}\n</table></body></html>')


def qp(text):
    """Quoted-printable (RFC 2045), soft line breaks at 76."""
    return binascii.b2a_qp(text.encode(), istext=True).decode()


def render_thread(args):
    """The files of one conversation: [(folder, name, bytes, mtime)], from the thread's own generator."""
    seed, index, kind, start, size, folder, now, pool, max_attachment = args
    rng = random.Random(seed * 1_000_003 + index)
    files = []
    people = [person(rng) for _ in range(rng.randint(1, 4))]
    topic = rng.choice(TOPICS).format(q=rng.randint(1, 4), y=rng.randint(2006, 2027), city=rng.choice(CITIES),
                                      day=rng.choice(["Friday", "Sunday", "the 12th"]), v=f"{rng.randint(1, 9)}.{rng.randint(0, 20)}",
                                      co=rng.choice(COMPANIES).title(), role=rng.choice(ROLES), arch=rng.choice(["arm64", "x86_64"]),
                                      thing=rng.choice(THINGS), module=rng.choice(["core", "net", "store"]), n=rng.randint(1000, 99999))
    list_name = folder.split("/")[-1] if kind == "list" else None
    ids, previous_text, seconds = [], "", start
    for position in range(size):
        if position:
            seconds += int(rng.expovariate(1 / (6 * 3600))) + 60
        if seconds > now:
            seconds = now - rng.randint(0, 3600)
        mine = kind in ("person", "trash") and position % 2 == 1 and rng.random() < 0.8
        sender = OWN if mine else rng.choice(people)
        target = SENT if mine else folder
        own_id = f"<{rng.getrandbits(64):016x}.{index}.{position}@{sender[1].split('@')[1]}>"
        subject = topic if position == 0 else "Re: " + topic
        to_addresses = [OWN] if not mine else [p for p in people if p != sender][:3] or [people[0]]
        head = [f"Return-Path: <{sender[1]}>\n"]
        host = f"mail-{rng.choice(['ej1', 'wr1', 'qt1'])}-f{rng.randint(10, 99)}.{sender[1].split('@')[1]}"
        for hop in range(rng.randint(1, 3)):
            head.append(received(rng, seconds - hop, host))
        if rng.random() < 0.7:
            head.append(f"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d={sender[1].split('@')[1]}; s=s{rng.randint(1, 9)};\n"
                        f"\th=from:to:subject:date:message-id; bh={base64.b64encode(rng.randbytes(32)).decode()};\n"
                        f"\tb={wrapped(base64.b64encode(rng.randbytes(128)).decode(), 70).replace(chr(10), chr(10) + chr(9))}\n")
        head.append(f"Message-ID: {own_id}\nDate: {header_date(seconds)}\n")
        head.append(f"From: {encode_name(sender[0])} <{sender[1]}>\n")
        head.append("To: " + ", ".join(f"{encode_name(n)} <{a}>" for n, a in to_addresses) + "\n")
        if rng.random() < 0.25 and kind in ("person", "list"):
            cc = person(rng)
            head.append(f"Cc: {encode_name(cc[0])} <{cc[1]}>\n")
        head.append(f"Subject: {subject}\n")
        if ids:
            head.append(f"In-Reply-To: {ids[-1]}\nReferences: {' '.join(ids[-12:])}\n")
        if list_name:
            head.append(f"List-Id: <{list_name}.lists.example.org>\nList-Unsubscribe: <mailto:{list_name}-leave@lists.example.org>\n")
        if kind in ("newsletter", "receipt", "notification", "spam"):
            head.append(f"List-Unsubscribe: <https://news.example.com/u/{rng.getrandbits(48):012x}>\nPrecedence: bulk\n")
        head.append("MIME-Version: 1.0\n")
        # The body: new text above the quote of the message before.
        sentences = max(1, int(rng.lognormvariate(1.3, 0.8)))
        own_text = "\n\n".join(paragraph_text(rng, max(1, sentences // 3 + 1)) for _ in range(1 + sentences // 4))
        text = wrapped(own_text)
        if previous_text and kind in ("person", "list", "trash"):
            quote = "\n".join("> " + line for line in previous_text.split("\n")[:40])
            text += f"\n\nOn {header_date(seconds - 3600)}, someone wrote:\n{quote}"
        previous_text = wrapped(own_text)
        boundary = f"b{rng.getrandbits(64):016x}"
        parts = []
        heavy = kind in ("newsletter", "spam")
        html = kind in ("newsletter", "receipt", "notification", "spam") or rng.random() < 0.45
        if html:
            if heavy:
                text += "\n\n" + wrapped(paragraph_text(rng, rng.randint(20, 60)))
            alternative = (f"--{boundary}a\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n"
                           f"{qp(text)}\n--{boundary}a\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n"
                           f"{qp(html_of(rng, own_text if not heavy else text, heavy))}\n--{boundary}a--\n")
            parts.append(("multipart/alternative", f'multipart/alternative; boundary="{boundary}a"', alternative))
        else:
            parts.append(("text/plain", "text/plain; charset=utf-8; format=flowed", None))
        attachment_chance = {"person": 0.08, "list": 0.02, "receipt": 0.3, "trash": 0.08}.get(kind, 0.0)
        attachments = []
        if rng.random() < attachment_chance:
            for _ in range(1 if rng.random() < 0.8 else rng.randint(2, 4)):
                mime_type, extension = rng.choice(ATTACHMENTS) if kind != "receipt" else ATTACHMENTS[0]
                kilobytes = min(max_attachment, max(4, int(rng.lognormvariate(3.7, 1.2))))
                attachments.append((mime_type, f"{words(rng, 2).replace(' ', '-')}-{rng.randint(1, 999)}.{extension}",
                                    pool.base64(rng, kilobytes * 1024)))
        if not attachments and parts[0][0] == "text/plain":
            body = f"Content-Type: {parts[0][1]}\nContent-Transfer-Encoding: 8bit\n\n{text}\n"
        elif not attachments:
            body = f"Content-Type: {parts[0][1]}\n\n{parts[0][2]}"
        else:
            mixed = [f"Content-Type: multipart/mixed; boundary=\"{boundary}m\"\n\n--{boundary}m\n"]
            if parts[0][0] == "text/plain":
                mixed.append(f"Content-Type: {parts[0][1]}\nContent-Transfer-Encoding: 8bit\n\n{text}\n")
            else:
                mixed.append(f"Content-Type: {parts[0][1]}\n\n{parts[0][2]}")
            for mime_type, filename, data in attachments:
                mixed.append(f"--{boundary}m\nContent-Type: {mime_type}; name=\"{filename}\"\nContent-Disposition: attachment; "
                             f"filename=\"{filename}\"\nContent-Transfer-Encoding: base64\n\n{data}\n")
            mixed.append(f"--{boundary}m--\n")
            body = "".join(mixed)
        content = ("".join(head) + body).encode()
        age = now - seconds
        flags = ""
        if target != SENT and rng.random() < (0.02 if kind == "person" else 0.005):
            flags += "F"
        if mine is False and position + 1 < size and kind == "person":
            flags += "R"
        if target == SENT or age > 14 * DAY or rng.random() < 0.5:
            flags += "S"
        flags = "".join(sorted(flags))
        copies = [target]
        if target == INBOX and kind == "person" and rng.random() < 0.1:
            copies.append(rng.choice(PROJECT_FOLDERS))  # a Gmail label: the same message in two folders
        for copy, place in enumerate(copies):
            virtual = len(content) + content.count(b"\n")
            name = f"{seconds}.M{index % 1_000_000}P{position}Q{copy}.gen{seed},S={len(content)},W={virtual}:2,{flags}"
            files.append((place, name, content, seconds))
        ids.append(own_id)
    return files


def write_chunk(job):
    """Renders and writes a chunk of threads; returns (files, bytes)."""
    root, seed, chunk, now, max_attachment, owner = job
    if owner and os.geteuid() == 0:
        os.setegid(owner[1])
        os.seteuid(owner[0])
    pool = POOL
    count = total = 0
    made = set()
    for index, kind, start, size, folder in chunk:
        for place, name, content, seconds in render_thread((seed, index, kind, start, size, folder, now, pool, max_attachment)):
            directory = os.path.join(maildir_path(root, place), "cur")
            if directory not in made:
                os.makedirs(directory, exist_ok=True)
                made.add(directory)
            path = os.path.join(directory, name)
            with open(path, "wb") as f:
                f.write(content)
            os.utime(path, (seconds, seconds))
            count += 1
            total += len(content)
    return count, total


POOL = None


def main():
    global POOL, OWN  # made once before the workers fork, shared by them
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--user", default="dave")
    parser.add_argument("--count", type=int, required=True, help="messages to write (a label's second copies add about 2%% more files)")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--now", default="2026-11-01", help="the newest date (YYYY-MM-DD)")
    parser.add_argument("--years", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--max-attachment-kb", type=int, default=3072)
    parser.add_argument("--dump", help="write the Maildir here instead of into the test Dovecot")
    args = parser.parse_args()
    OWN = (OWN[0], f"{args.user}@tern.test")
    now = int(dt.datetime.strptime(args.now, "%Y-%m-%d").replace(tzinfo=dt.timezone.utc).timestamp())
    started = time.perf_counter()
    owner = None
    if args.dump:
        root = args.dump
        os.makedirs(root, exist_ok=True)
    else:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
        from sync_peers import settings  # the test servers' state directory, as `scripts/mailservers env` prints it
        home = os.path.join(settings()["TERN_MAILSERVERS_DIR"], "mail", args.user)
        root = os.path.join(home, "Maildir")
        os.makedirs(root, exist_ok=True)
        owner = (os.stat(home).st_uid, os.stat(home).st_gid)
    # Replace: every folder this script writes, and Dovecot's mailbox list index, so it lists them anew.
    folders = [INBOX, SENT, TRASH, SPAM, RECEIPTS, NEWSLETTERS, *LIST_FOLDERS, *PROJECT_FOLDERS]
    for folder in ["Lists", "Work", *folders]:
        shutil.rmtree(maildir_path(root, folder), ignore_errors=True)
    for name in os.listdir(root):
        if name.startswith("dovecot.list.index") or name.startswith("dovecot-uidvalidity"):
            os.remove(os.path.join(root, name))
    for folder in folders:
        for part in ("cur", "new", "tmp"):
            os.makedirs(os.path.join(maildir_path(root, folder), part), exist_ok=True)
    if owner:
        for directory, subdirectories, _ in os.walk(root):
            os.chown(directory, *owner)
    with open(os.path.join(root, "subscriptions"), "w") as f:
        f.write("V\t2\n\n" + "\t".join(folders) + "\n")
    if owner:
        os.chown(os.path.join(root, "subscriptions"), *owner)
    threads = layout(args.seed, args.count, now, args.years)
    POOL = Pool(args.seed)
    SENTENCES.extend(make_sentences(args.seed))
    indexed = [(index, *thread) for index, thread in enumerate(threads)]
    chunks = [indexed[i:i + 2000] for i in range(0, len(indexed), 2000)]
    jobs = [(root, args.seed, chunk, now, args.max_attachment_kb, owner) for chunk in chunks]
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(args.jobs) as workers:
            results = workers.map(write_chunk, jobs, chunksize=1)
    else:
        results = [write_chunk(job) for job in jobs]
    print(json.dumps({
        "messages": sum(r[0] for r in results), "threads": len(threads), "folders": folders,
        "bytes": sum(r[1] for r in results), "seconds": round(time.perf_counter() - started, 1), "maildir": root}))


if __name__ == "__main__":
    main()
