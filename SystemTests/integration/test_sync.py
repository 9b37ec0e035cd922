"""`tern sync` against the real Dovecot: what the store holds matches the server (FR-SYNC-01, 02, 05, 06)."""
import imaplib
import json
import subprocess
import time
from datetime import datetime, timedelta, timezone

import pytest

from support.accounts import add_account
from support.servers import user_address
from support.tern import MAILSERVERS, TERN, sync, tern

USER = "alice"


def local_folders(home):
    return {f["path"]: f for f in json.loads(tern(home, "folders", "--json", check=True).stdout)}


def status(home):
    return json.loads(tern(home, "status", "--json", check=True).stdout)["counts"]


@pytest.fixture()
def mailbox(servers, tls_context):
    """alice's mailbox with seeded mail (added once per test run), and an IMAP connection to it."""
    imap = imaplib.IMAP4_SSL("127.0.0.1", int(servers["TERN_IMAPS_PORT"]), ssl_context=tls_context)
    imap.login(user_address(servers, USER), servers["TERN_TEST_PASSWORD"])
    imap.select("INBOX")
    if len(imap.search(None, "ALL")[1][0].split()) < 100:
        subprocess.run([str(MAILSERVERS), "seed", "--user", USER, "--count", "400", "--seed", "21"], check=True, capture_output=True)
    yield imap
    imap.logout()


def in_window(imap, folder, days=90):
    """Messages of the sync window (the account default, 90 days), as the server counts them."""
    imap.select(f'"{folder}"', readonly=True)
    since = (datetime.now(timezone.utc) - timedelta(days=days)).strftime("%d-%b-%Y")
    return len(imap.uid("SEARCH", None, "SINCE", since)[1][0].split())


def test_sync_stores_what_the_server_has_and_resumes_without_duplicates(servers, mailbox, tmp_path):
    add_account(tmp_path, servers, USER)
    folders, report = sync(tmp_path, USER)
    assert report["firstPageMilliseconds"] is not None
    assert "[Gmail]/All Mail" not in folders and "[Gmail]/Important" not in folders  # FR-SYNC-01 step 1
    local = local_folders(tmp_path)
    for path, folder in folders.items():
        assert folder.get("error") is None, folder
        # The window may gain a day's edge between the two counts; a message or two of slack.
        assert abs(local[path]["messageCount"] - in_window(mailbox, path)) <= 2, path
    counts = status(tmp_path)
    again, _ = sync(tmp_path, USER)
    assert all(folder["inserted"] == 0 for folder in again.values())
    assert status(tmp_path)["email"] == counts["email"]
    assert status(tmp_path)["emailFolder"] == counts["emailFolder"]


def test_unchanged_folders_are_not_selected_again_and_changed_ones_are(servers, mailbox, tmp_path):
    """FR-SYNC-02 incremental: one pipelined STATUS tells which folders changed since the last sync."""
    from email.message import EmailMessage
    add_account(tmp_path, servers, USER)
    sync(tmp_path, USER)

    def selected():
        result = tern(tmp_path, "sync", USER, "--json")
        assert result.returncode == 0, result.stderr
        events = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
        return {e["folder"] for e in events if e["event"] == "selectingFolder"}, json.loads(result.stdout)[0]

    sync(tmp_path, USER)  # the first incremental sync records the counts STATUS is compared with
    quiet, _ = selected()
    assert "INBOX" not in quiet and "[Gmail]/Sent Mail" not in quiet
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "zoe@example.org", user_address(servers, USER), f"Status {time.time()}"
    message["Date"] = datetime.now(timezone.utc).strftime("%a, %d %b %Y %H:%M:%S +0000")
    message.set_content("Appended by another client.")
    mailbox.append('"[Gmail]/Sent Mail"', None, None, message.as_bytes())
    changed, report = selected()
    assert "[Gmail]/Sent Mail" in changed and "INBOX" not in changed
    sent = next(folder for folder in report["folders"] if folder["path"] == "[Gmail]/Sent Mail")
    assert sent["inserted"] + sent["linked"] == 1


def test_a_message_skipped_by_a_failed_fetch_is_fetched_at_the_next_sync(servers, tmp_path):
    """FR-SYNC-01: a single email that fails to fetch is skipped, and retried on the next sync cycle.

    Dovecot answers every FETCH, so the failure is staged in the store as a failed sync leaves it: the
    cursors past the message, no row for it, and the folder's note that messages were skipped."""
    import sqlite3
    add_account(tmp_path, servers, USER)
    sync(tmp_path, USER)
    sync(tmp_path, USER)
    database = sqlite3.connect(tmp_path / "tern.sqlite")
    database.execute("PRAGMA foreign_keys = ON")
    with database:
        folder_id, low, high = database.execute(
            "SELECT id, backfillCursorUID, forwardCursorUID FROM folder WHERE path = 'INBOX'").fetchone()
        uid = database.execute("SELECT imapUID FROM emailFolder WHERE folderId = ? AND imapUID > ? AND imapUID < ? ORDER BY imapUID LIMIT 1",
                               (folder_id, low, high)).fetchone()[0]
        email_id = database.execute("SELECT emailId FROM emailFolder WHERE folderId = ? AND imapUID = ?", (folder_id, uid)).fetchone()[0]
        database.execute("DELETE FROM email WHERE id = ?", (email_id,))
        database.execute("UPDATE folder SET lastSyncError = '1 message could not be fetched; retried at the next sync' WHERE id = ?",
                         (folder_id,))
    folders, _ = sync(tmp_path, USER)
    assert folders["INBOX"]["retriedMessages"] == 1
    assert folders["INBOX"]["failedMessages"] == 0
    with database:
        assert database.execute("SELECT count(*) FROM emailFolder WHERE folderId = ? AND imapUID = ?", (folder_id, uid)).fetchone()[0] == 1
        assert database.execute("SELECT lastSyncError FROM folder WHERE id = ?", (folder_id,)).fetchone()[0] is None
    database.close()
    folders, _ = sync(tmp_path, USER)
    assert folders["INBOX"]["retriedMessages"] == 0


def test_expunges_and_flag_changes_by_another_client_are_pulled(servers, mailbox, tmp_path):
    add_account(tmp_path, servers, USER)
    sync(tmp_path, USER)
    mailbox.select("INBOX")
    since = (datetime.now(timezone.utc) - timedelta(days=30)).strftime("%d-%b-%Y")
    uids = mailbox.uid("SEARCH", None, "SINCE", since)[1][0].split()
    assert len(uids) >= 3
    mailbox.uid("STORE", uids[-1], "+FLAGS", r"(\Deleted)")
    mailbox.uid("EXPUNGE", uids[-1])
    flagged = b"\\Flagged" in mailbox.uid("FETCH", uids[-2], "(FLAGS)")[1][0]
    mailbox.uid("STORE", uids[-2], "-FLAGS" if flagged else "+FLAGS", r"(\Flagged)")  # a star added or removed elsewhere
    folders, _ = sync(tmp_path, USER)
    assert folders["INBOX"]["removed"] == 1
    assert folders["INBOX"]["flagChanges"] >= 1


def test_a_message_in_two_folders_is_one_email(servers, mailbox, tmp_path):
    add_account(tmp_path, servers, USER)
    stamp = int(time.time() * 1000)
    message = (f"From: Zoe <zoe@example.org>\r\nTo: {user_address(servers, USER)}\r\nSubject: Twice {stamp}\r\n"
               f"Date: {datetime.now(timezone.utc).strftime('%a, %d %b %Y %H:%M:%S +0000')}\r\n"
               f"Message-ID: <twice-{stamp}@example.org>\r\n\r\nHello twice.\r\n").encode()
    mailbox.create("Twice")
    mailbox.append("INBOX", None, None, message)
    mailbox.append("Twice", None, None, message)
    sync(tmp_path, USER, "--bodies", "all")
    before = status(tmp_path)
    assert local_folders(tmp_path)["Twice"]["messageCount"] >= 1
    threads = json.loads(tern(tmp_path, "threads", "--folder", "Twice", "--json", check=True).stdout)
    assert any(t["subject"] == f"Twice {stamp}" and t["messageCount"] == 1 for t in threads)
    assert before["emailFolder"] > before["email"]
    # Bodies were fetched (--bodies all): searchable, and shown by `tern thread`.
    hits = json.loads(tern(tmp_path, "search", "twice", str(stamp), "--json", check=True).stdout)
    assert len(hits) == 1
    [shown] = json.loads(tern(tmp_path, "thread", f"t{hits[0]['threadId']}", "--keep-unread", "--json", check=True).stdout)["messages"]
    assert shown["text"].strip() == "Hello twice."
    assert sorted(shown["folders"]) == ["INBOX", "Twice"]



def test_watch_shows_new_mail_delivered_through_postfix(servers, mailbox, tmp_path):
    import os
    import queue
    import smtplib
    import threading
    from email.message import EmailMessage

    add_account(tmp_path, servers, USER)
    watcher = subprocess.Popen([str(TERN), "sync", USER, "--watch", "--json", "--bodies", "none"], stdout=subprocess.PIPE,
                               stderr=open(tmp_path / "watch.err", "w"), text=True, env=dict(os.environ, TERN_HOME=str(tmp_path)))
    events = queue.Queue()
    threading.Thread(target=lambda: [events.put(json.loads(line)) for line in watcher.stdout], daemon=True).start()

    def wait_for(predicate, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                event = events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if predicate(event):
                return event
        raise AssertionError("the event did not come")

    try:
        wait_for(lambda e: e.get("event") == "watching", 60)
        subject = f"Watch {time.time()}"
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = "zoe@example.org", user_address(servers, USER), subject
        message.set_content("New mail while watching.")
        with smtplib.SMTP("127.0.0.1", int(servers["TERN_SMTP_PORT"])) as smtp:
            smtp.send_message(message)
        # IDLE pushes it: well before any poll would (the latency itself is a benchmark figure).
        wait_for(lambda e: e.get("event") == "newMail" and any(m["subject"] == subject for m in e["data"]), 20)
    finally:
        watcher.kill()
        watcher.wait()


def test_sync_killed_at_twenty_random_moments_resumes_to_the_server_state(servers, tls_context, tmp_path):
    """kill -9 during an initial sync of 2,000 messages, 20 times, each followed by a resumed sync."""
    import os
    import random
    import signal

    user = "dave"
    imap = imaplib.IMAP4_SSL("127.0.0.1", int(servers["TERN_IMAPS_PORT"]), ssl_context=tls_context)
    imap.login(user_address(servers, user), servers["TERN_TEST_PASSWORD"])
    imap.select("INBOX", readonly=True)
    if len(imap.search(None, "ALL")[1][0].split()) < 1500:
        subprocess.run([str(MAILSERVERS), "seed", "--user", user, "--count", "2000", "--seed", "31", "--no-all-mail"],
                       check=True, capture_output=True)
    add_account(tmp_path, servers, user)
    env = dict(os.environ, TERN_HOME=str(tmp_path))
    # The moments are spread over the length of one whole initial sync, measured first in a scratch
    # home: 20 kills at up to a twelfth of it each land inside the sync however fast it gets.
    scratch = tmp_path / "measure"
    scratch.mkdir()
    add_account(scratch, servers, user)
    started = time.monotonic()
    subprocess.run([str(TERN), "sync", user, "--bodies", "all"], check=True, capture_output=True, env=dict(os.environ, TERN_HOME=str(scratch)))
    whole = time.monotonic() - started
    chance = random.Random(20261123)
    kills = 0
    for _ in range(20):
        process = subprocess.Popen([str(TERN), "sync", user, "--bodies", "all"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        time.sleep(chance.uniform(0.02, max(0.1, whole / 12)))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills += 1
        process.wait()
    assert kills >= 10, "the sync finished too fast to be interrupted"
    folders, _ = sync(tmp_path, user)  # resumes to the end
    local = local_folders(tmp_path)
    for path in folders:
        assert abs(local[path]["messageCount"] - in_window(imap, path)) <= 2, path
    again, _ = sync(tmp_path, user)
    assert all(folder["inserted"] == 0 and folder["removed"] == 0 for folder in again.values())
    counts = status(tmp_path)
    assert counts["emailFolder"] == sum(folder["messageCount"] for folder in local_folders(tmp_path).values())
    # Every email is in some folder (none left behind by a killed batch), and has its thread.
    result = tern(tmp_path, "threads", "--limit", "100000", "--json", check=True)
    assert sum(t["messageCount"] for t in json.loads(result.stdout)) == local["INBOX"]["messageCount"]
    imap.logout()


def test_attachment_download_killed_halfway_leaves_no_file_and_succeeds_later(servers, mailbox, tmp_path):
    import hashlib
    import os
    import signal
    from email.message import EmailMessage

    add_account(tmp_path, servers, USER)
    payload = os.urandom(12 * 1024 * 1024)
    stamp = int(time.time() * 1000)
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "zoe@example.org", user_address(servers, USER), f"Big file {stamp}"
    message["Message-ID"] = f"<big-{stamp}@example.org>"
    message["Date"] = datetime.now(timezone.utc).strftime("%a, %d %b %Y %H:%M:%S +0000")
    message.set_content("The file is attached.")
    message.add_attachment(payload, maintype="application", subtype="octet-stream", filename="../../big.bin")
    mailbox.append("INBOX", None, None, message.as_bytes())
    sync(tmp_path, USER, "--bodies", "none")
    [hit] = json.loads(tern(tmp_path, "search", "Big", "file", str(stamp), "--json", check=True).stdout)
    [shown] = json.loads(tern(tmp_path, "thread", f"t{hit['threadId']}", "--keep-unread", "--json", check=True).stdout)["messages"]
    [attachment] = shown["attachments"]

    env = dict(os.environ, TERN_HOME=str(tmp_path))
    process = subprocess.Popen([str(TERN), "attachment", "download", f"a{attachment['id']}"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=env)
    time.sleep(0.3)
    killed = process.poll() is None
    process.send_signal(signal.SIGKILL)
    process.wait()
    final_files = [p for p in (tmp_path / "attachments").rglob("*") if p.is_file() and not p.name.endswith(".partial")] \
        if (tmp_path / "attachments").exists() else []
    if killed:
        assert final_files == []  # nothing under a final name
    result = tern(tmp_path, "attachment", "download", f"a{attachment['id']}", check=True)
    path = result.stdout.strip()
    assert path.startswith(str(tmp_path / "attachments"))  # "../../big.bin" stays inside
    assert hashlib.sha256(open(path, "rb").read()).digest() == hashlib.sha256(payload).digest()
    assert not [p for p in (tmp_path / "attachments").rglob("*.partial")]
    assert killed, "the download finished before it could be interrupted"


def test_html_only_mail_is_searched_by_its_text_not_its_markup(servers, mailbox, tmp_path):
    add_account(tmp_path, servers, USER)
    stamp = int(time.time() * 1000)
    html = (f"<html><head><style>.quokka{stamp} {{ color: red }}</style></head>"
            f"<body><p>Newsletter about <b>wombat{stamp}</b> habitats.</p><script>var numbat{stamp} = 1;</script></body></html>")
    message = (f"From: News <news@example.org>\r\nTo: {user_address(servers, USER)}\r\nSubject: Html only {stamp}\r\n"
               f"Date: {datetime.now(timezone.utc).strftime('%a, %d %b %Y %H:%M:%S +0000')}\r\nMessage-ID: <html-{stamp}@example.org>\r\n"
               f"MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n").encode()
    mailbox.append("INBOX", None, None, message)
    sync(tmp_path, USER, "--bodies", "all")
    [hit] = json.loads(tern(tmp_path, "search", f"wombat{stamp}", "--json", check=True).stdout)
    assert "wombat" in hit["snippet"] and "<" not in hit["snippet"]
    for hidden in (f"quokka{stamp}", f"numbat{stamp}"):  # style and script text is not content
        assert json.loads(tern(tmp_path, "search", hidden, "--json", check=True).stdout) == []


def test_the_inbox_first_page_is_ready_before_any_other_folder_is_touched(servers, mailbox, tmp_path):
    add_account(tmp_path, servers, USER)
    result = tern(tmp_path, "sync", USER, "--json")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    order = [(e["event"], e.get("folder")) for e in events if e["event"] in ("selectingFolder", "firstPageReady")]
    ready = order.index(("firstPageReady", None))
    assert order[:ready] == [("selectingFolder", "INBOX")]  # FR-SYNC-01 stage B
    # Stage C: every folder's newest headers before any folder's history (each folder selected twice, in order).
    selected = [folder for event, folder in order if event == "selectingFolder"]
    folders = selected[: len(selected) // 2]
    assert selected == folders + folders and folders[0] == "INBOX"


def test_a_mailbox_deleted_and_recreated_is_resynced_from_scratch(servers, mailbox, tmp_path):
    add_account(tmp_path, servers, USER)
    stamp = int(time.time() * 1000)
    name = f"Recreated-{stamp}"

    def fill(count, tag):
        for n in range(count):
            raw = (f"From: Zoe <zoe@example.org>\r\nTo: {user_address(servers, USER)}\r\nSubject: {tag} {n} {stamp}\r\n"
                   f"Date: {datetime.now(timezone.utc).strftime('%a, %d %b %Y %H:%M:%S +0000')}\r\n"
                   f"Message-ID: <{tag}-{n}-{stamp}@example.org>\r\n\r\nBody {n}.\r\n").encode()
            mailbox.append(f'"{name}"', None, None, raw)

    mailbox.create(f'"{name}"')
    fill(3, "before")
    sync(tmp_path, USER)
    assert local_folders(tmp_path)[name]["messageCount"] == 3
    mailbox.select("INBOX")
    mailbox.delete(f'"{name}"')
    mailbox.create(f'"{name}"')  # a new UIDVALIDITY; UIDs start again at 1
    fill(2, "after")
    folders, _ = sync(tmp_path, USER)
    assert folders[name]["uidValidityReset"] is True
    assert local_folders(tmp_path)[name]["messageCount"] == 2
    subjects = {t["subject"] for t in json.loads(tern(tmp_path, "threads", "--folder", name, "--json", check=True).stdout)}
    assert subjects == {f"after 0 {stamp}", f"after 1 {stamp}"}
    mailbox.delete(f'"{name}"')


def test_two_syncs_at_once_take_turns_per_folder_and_agree_with_the_server(servers, mailbox, tmp_path):
    import os
    add_account(tmp_path, servers, USER)
    env = dict(os.environ, TERN_HOME=str(tmp_path))
    stamp = int(time.time() * 1000)
    runs = [subprocess.Popen([str(TERN), "sync", USER, "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(2)]
    for n in range(5):  # mail arriving while both run
        raw = (f"From: Zoe <zoe@example.org>\r\nTo: {user_address(servers, USER)}\r\nSubject: During {n} {stamp}\r\n"
               f"Date: {datetime.now(timezone.utc).strftime('%a, %d %b %Y %H:%M:%S +0000')}\r\n"
               f"Message-ID: <during-{n}-{stamp}@example.org>\r\n\r\nHi.\r\n").encode()
        mailbox.append("INBOX", None, None, raw)
        time.sleep(0.05)
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err.decode()
    sync(tmp_path, USER)
    local = local_folders(tmp_path)
    assert abs(local["INBOX"]["messageCount"] - in_window(mailbox, "INBOX")) <= 2
    hits = json.loads(tern(tmp_path, "search", "during", str(stamp), "--json", check=True).stdout)
    assert len(hits) == 5  # every one, once


def test_a_sync_reports_the_fr_sync_04_states_in_order(servers, mailbox, tmp_path):
    add_account(tmp_path, servers, USER)
    for _ in range(2):  # a first sync and an incremental one go through the same states
        result = tern(tmp_path, "sync", USER, "--json")
        assert result.returncode == 0, result.stderr
        states = [json.loads(line)["state"] for line in result.stderr.splitlines()
                  if line.startswith("{") and json.loads(line)["event"] == "state"]
        assert states == ["connecting", "authenticating", "syncingFolders", "initialFast", "catchingUp", "indexing", "idle"]


def test_older_mail_is_fetched_on_demand_with_the_context_guards(servers, mailbox, tmp_path):
    import os
    import signal
    add_account(tmp_path, servers, USER)
    env = dict(os.environ, TERN_HOME=str(tmp_path))
    # A first sync stopped right after the Inbox's first page: older mail is on the server only.
    run = subprocess.Popen([str(TERN), "sync", USER, "--json"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in run.stderr:
        if '"firstPageReady"' in line:
            run.send_signal(signal.SIGKILL)
            break
    run.wait()
    before = local_folders(tmp_path)["INBOX"]["messageCount"]
    paged = tern(tmp_path, "threads", "--account", USER, "--folder", "INBOX", "--older", "--json")
    assert paged.returncode == 0, paged.stderr
    assert "fetched" in paged.stderr
    assert local_folders(tmp_path)["INBOX"]["messageCount"] > before
    # Context guards (step 5): no server paging in the unified inbox or a virtual folder.
    assert "unified inbox" in tern(tmp_path, "threads", "--older").stderr
    assert "server folder" in tern(tmp_path, "threads", "--account", USER, "--archive", "--older").stderr
    # Paging on reaches the end of the sync window and says so.
    for _ in range(10):
        note = tern(tmp_path, "threads", "--account", USER, "--folder", "INBOX", "--older").stderr
        if "fetched" not in note:
            break
    assert "sync window ends here" in note or "no older mail" in note


def test_opening_a_thread_fetches_the_bodies_sync_left_for_later(servers, mailbox, tmp_path):
    add_account(tmp_path, servers, USER)
    stamp = int(time.time() * 1000)
    raw = (f"From: Zoe <zoe@example.org>\r\nTo: {user_address(servers, USER)}\r\nSubject: Open me {stamp}\r\n"
           f"Date: {datetime.now(timezone.utc).strftime('%a, %d %b %Y %H:%M:%S +0000')}\r\nMessage-ID: <open-{stamp}@example.org>\r\n"
           f"\r\nThe body of {stamp}, fetched when opened.\r\n").encode()
    mailbox.append("INBOX", None, None, raw)
    sync(tmp_path, USER, "--bodies", "none")
    [hit] = json.loads(tern(tmp_path, "search", "open", "me", str(stamp), "--json", check=True).stdout)
    [message] = json.loads(tern(tmp_path, "thread", f"t{hit['threadId']}", "--keep-unread", "--json", check=True).stdout)["messages"]
    assert message["bodyState"] == "available"
    assert message["text"].strip() == f"The body of {stamp}, fetched when opened."
    assert len(json.loads(tern(tmp_path, "search", "fetched", "when", "opened", str(stamp), "--json", check=True).stdout)) == 1
