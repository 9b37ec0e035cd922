#!/usr/bin/env python3
"""The web composer measured in Chromium (issue 18). Prints one JSON object.

Seeds a user's INBOX on the local Dovecot with the 5-message thread of web_thread_open.py, syncs it into a scratch
home, adds `--contacts` synthetic entries to its contact cache (names with accents, six domains, seeded; the cache
holds up to 10,000 per account) and runs `tern serve --no-sync`. Then, in Chromium (selenium), with
`performance.now()` in the page:

- **Reply to ready**: from the click on Reply in an open conversation until the composer is in the page with the
  caret in the body (two animation frames after, so it is painted).
- **keystroke to suggestions**: two letters put in To until the suggestion list shows options and is painted
  (two animation frames after it changed, as above).
- **autosave**: the save's request (Resource Timing: sent to answered; the draft is written to the store before
  the answer, the server's Drafts follows in the background), and from "Saving…" to "Draft saved" in the
  composer's status, which also waits for the page's next frame.

    scripts/bench/web_composer.py [--tern .build/release/tern] [--user carol] [--runs 30] [--contacts 10000]
"""
import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import tempfile
import uuid

from sync_peers import settings
from thread_open_peers import percentile, thread_messages
from web_thread_open import ROOT, TOKEN, chromium, serve, synced_home, thread_of

REPLY_SCRIPT = """
const done = arguments[arguments.length - 1];
const start = performance.now();
const ready = () => document.activeElement && document.activeElement.id === 'compose-body';
const finish = () => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - start)));
const observer = new MutationObserver(() => { if (ready()) { observer.disconnect(); finish(); } });
observer.observe(document.body, {childList: true, subtree: true, attributes: true});
document.addEventListener('focusin', () => { if (ready()) { observer.disconnect(); finish(); } }, {once: false});
[...document.querySelectorAll('[role=toolbar] a')].find((a) => a.textContent.trim() === 'Reply').click();
"""

SUGGEST_SCRIPT = """
const [letters, done] = [arguments[0], arguments[arguments.length - 1]];
const input = document.getElementById('compose-cc') || document.getElementById('compose-to');
const list = document.getElementById(input.getAttribute('aria-controls'));
input.value = '';
list.hidden = true;
list.replaceChildren();
input.focus();
const start = performance.now();
const observer = new MutationObserver(() => {
  if (!list.hidden && list.querySelector('[role=option]')) {
    observer.disconnect();
    requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - start)));
  }
});
observer.observe(list, {childList: true, attributes: true});
input.value = letters;
input.dispatchEvent(new Event('input', {bubbles: true}));
"""

SAVE_SCRIPT = """
const [text, done] = [arguments[0], arguments[arguments.length - 1]];
const status = document.getElementById('draft-status');
const body = document.getElementById('compose-body');
let start = null;
const observer = new MutationObserver(() => {
  if (status.textContent === 'Saving…' && start === null) start = performance.now();
  if (status.textContent === 'Draft saved' && start !== null) {
    observer.disconnect();
    const request = performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/compose/draft')).pop();
    done([performance.now() - start, request ? request.duration : NaN]);
  }
});
observer.observe(status, {childList: true, characterData: true, subtree: true});
body.value = text + body.value;
body.dispatchEvent(new Event('input', {bubbles: true}));
document.getElementById('composer').dispatchEvent(new KeyboardEvent('keydown', {key: 's', ctrlKey: true, bubbles: true}));
"""


FIRST = ["Ana", "Zoë", "Jörg", "Seán", "Marie", "José", "Li", "Olga", "Ivan", "Sam", "Aiko", "Björn", "Chloé", "Dmitri", "Émile",
         "Fatima", "Grace", "Hugo", "Inès", "Jan", "Kofi", "Lena", "Mateo", "Nora", "Omar", "Paula", "Quentin", "Rosa", "Sven", "Maya"]
LAST = ["Silva", "Müller", "O'Brien", "Durand", "Smith", "Nguyen", "García", "Kowalski", "Rossi", "Novák", "Andersson", "Yamada",
        "Dubois", "Ivanova", "Jensen", "López", "Martin", "Schmidt", "Costa", "Horvath"]
DOMAINS = ["example.org", "mail.example.com", "corp.example", "uni.example.edu", "bücher.example", "example.fr"]


def seed_contacts(database, count):
    """The contact cache as sync fills it, written straight into the scratch store (sync would need that much mail)."""
    generator = random.Random(18)
    connection = sqlite3.connect(database)
    account = connection.execute("SELECT id FROM account").fetchone()[0]
    rows = []
    for index in range(count):
        given, family, domain = generator.choice(FIRST), generator.choice(LAST), generator.choice(DOMAINS)
        address = f"{given}.{family}{index}".lower().replace("'", "") + f"@{domain}"
        rows.append((f"bench-{index}", account, address, f"{given} {family}", f"2026-0{1 + index % 9}-1{index % 10} 10:00:00.000",
                     1 + generator.randrange(50)))
    connection.executemany("INSERT OR IGNORE INTO contactCacheEntry (id, accountId, emailAddress, displayName, lastSeenDate, frequency)"
                           " VALUES (?, ?, ?, ?, ?, ?)", rows)
    connection.commit()
    connection.close()


def summary(values):
    return {"p50Milliseconds": round(statistics.median(values), 1), "p95Milliseconds": round(percentile(values, 0.95), 1), "runs": len(values)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tern", default=os.path.join(ROOT, ".build", "release", "tern"))
    parser.add_argument("--user", default="carol")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--contacts", type=int, default=10_000)
    args = parser.parse_args()
    s = settings()
    address = f"{args.user}@{s['TERN_TEST_DOMAIN']}"
    stamp = uuid.uuid4().hex[:10]
    _, short = thread_messages(stamp, address)
    scratch = tempfile.mkdtemp(prefix="tern-composer-bench-")
    server = None
    try:
        home, env = synced_home(args.tern, args.user, s, scratch, short)
        thread_id = thread_of(args.tern, env, f"Quarterly plan {stamp}")
        seed_contacts(os.path.join(home, "tern.sqlite"), args.contacts)
        letters = "ma"
        server, base = serve(args.tern, env)
        driver = chromium()
        reply, suggest, save = [], [], []
        try:
            driver.get(f"{base}/?token={TOKEN}")
            for run in range(args.runs + 2):
                driver.get(f"{base}/mail?thread={thread_id}")
                reply.append(driver.execute_async_script(REPLY_SCRIPT))
                suggest.append(driver.execute_async_script(SUGGEST_SCRIPT, letters))
                save.append(driver.execute_async_script(SAVE_SCRIPT, f"Edit {run}. "))
        finally:
            driver.quit()
        reply, suggest, save = reply[2:], suggest[2:], save[2:]
        request = [entry[1] for entry in save]
        save = [entry[0] for entry in save]
        print(json.dumps({
            "replyToReady": summary(reply),
            "keystrokeToSuggestions": {**summary(suggest), "typed": letters, "contacts": args.contacts},
            "autosaveRequest": summary(request),
            "autosaveStatus": summary(save),
        }, indent=2))
    finally:
        if server:
            server.terminate()
            server.wait(timeout=10)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
