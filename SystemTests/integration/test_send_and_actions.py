"""The sending side against the real Dovecot and Postfix (FR-SYNC-05, 07, 10): flag pushes, archive
and delete checked with a second IMAP client, the offline send queue, exactly-once delivery."""
import json
import os
import subprocess
import time
from datetime import datetime, timezone

from support.imap import flags_of, imap_for, uids_with_message_id, uids_with_subject
from support.servers import user_address
from support.tern import MAILSERVERS, TERN, json_of, tern
from support.waiting import wait_for

SENDER = "alice"
RECIPIENT = "bob"
USER = SENDER  # the `home` fixture's account


def planted(servers, imap, home, folder="INBOX", label=""):
    """A message put in `folder` by another client, synced; returns (message id, Tern's email id, thread id)."""
    stamp = f"{int(time.time() * 1000)}{label}"
    message_id = f"<action-{stamp}@example.org>"
    raw = (f"From: Zoe <zoe@example.org>\r\nTo: {user_address(servers, SENDER)}\r\nSubject: Action {stamp}\r\n"
           f"Date: {datetime.now(timezone.utc).strftime('%a, %d %b %Y %H:%M:%S +0000')}\r\nMessage-ID: {message_id}\r\n\r\nHello.\r\n")
    imap.append(f'"{folder}"', None, None, raw.encode())
    json_of(home, "sync", SENDER)
    [hit] = json_of(home, "search", "action", stamp)
    return message_id, hit["emailId"], hit["threadId"]


def local_message(home, thread_id, email_id):
    return next(m for m in json_of(home, "thread", f"t{thread_id}", "--keep-unread")["messages"] if m["id"] == email_id)


def test_flag_changes_reach_the_server(servers, home, alice):
    message_id, email, thread = planted(servers, alice, home)
    for change, present, flag in [("read", True, "\\Seen"), ("star", True, "\\Flagged"), ("unread", False, "\\Seen"),
                                  ("unstar", False, "\\Flagged")]:
        result = json_of(home, "mark", change, f"m{email}")
        assert result["pushed"] == 1 and not result["failed"], result
        assert (flag in flags_of(alice, "INBOX", message_id)) == present, change
    # Thread ids work too, and the local state is what was asked.
    json_of(home, "mark", "read", f"t{thread}")
    assert "\\Seen" in flags_of(alice, "INBOX", message_id)
    assert local_message(home, thread, email)["isRead"] is True
    # Opening a thread marks it read (FR-ED-01), on the server too.
    json_of(home, "mark", "unread", f"t{thread}")
    assert "\\Seen" not in flags_of(alice, "INBOX", message_id)
    [opened] = json_of(home, "thread", f"t{thread}")["messages"]
    assert opened["isRead"] is True and "\\Seen" in flags_of(alice, "INBOX", message_id)


def test_a_failed_push_reverts_after_its_retries_and_can_be_retried(servers, home, alice, tls_context):
    message_id, email, thread = planted(servers, alice, home)
    subprocess.run([str(MAILSERVERS), "stop-dovecot"], check=True)
    try:
        result = json_of(home, "mark", "read", f"m{email}")
        assert result["waiting"] == 1
        assert local_message_offline(home, email)["isRead"] is True  # optimistic
        for _ in range(3):  # the three retries (5 s, 15 s, 45 s), asked for now
            json_of(home, "changes", "push", "--now")
        [change] = json_of(home, "changes")
        assert change["state"] == "failed" and change["attempts"] == 4 and change["lastError"]
        assert local_message_offline(home, email)["isRead"] is False  # reverted to the server's state
    finally:
        subprocess.run([str(MAILSERVERS), "start"], check=True, capture_output=True)
    alice = imap_for(servers, tls_context, SENDER)
    assert "\\Seen" not in flags_of(alice, "INBOX", message_id)
    retried = json_of(home, "changes", "retry", f"c{change['id']}")
    assert retried["pushed"] == 1
    assert "\\Seen" in flags_of(alice, "INBOX", message_id)
    assert json_of(home, "changes") == []


def local_message_offline(home, email):
    """`tern thread` reads only the store, so it works while the server is down."""
    for thread in json_of(home, "search", "action", "--limit", "200"):
        if thread["emailId"] == email:
            return local_message(home, thread["threadId"], email)
    raise AssertionError(f"message {email} not found")


def test_archive_and_delete_leave_the_server_as_fr_sync_10_says(servers, home, alice):
    # Archive from INBOX: out of INBOX, in All Mail, kept locally in the virtual Archive.
    archived_id, email, thread = planted(servers, alice, home, label="a")
    result = json_of(home, "archive", f"t{thread}", "--no-undo")
    assert result["action"]["pushed"] == 1 and result.get("undo") is None, result
    assert uids_with_message_id(alice, "INBOX", archived_id) == []
    assert len(uids_with_message_id(alice, "[Gmail]/All Mail", archived_id)) == 1
    assert any(t["id"] == thread for t in json_of(home, "threads", "--archive"))
    assert local_message(home, thread, email)["folders"] == []
    # Nothing comes back on the next sync.
    json_of(home, "sync", SENDER)
    assert not any(t["id"] == thread for t in json_of(home, "threads"))

    # Archive from a label: only that folder's copy moves.
    label_id, email, thread = planted(servers, alice, home, folder="Receipts", label="l")
    json_of(home, "archive", f"m{email}", "--folder", "Receipts", "--no-undo")
    assert uids_with_message_id(alice, "Receipts", label_id) == []
    assert len(uids_with_message_id(alice, "[Gmail]/All Mail", label_id)) == 1

    # Delete from INBOX: to Trash; then from Trash: gone for good.
    deleted_id, email, thread = planted(servers, alice, home, label="d")
    json_of(home, "delete", f"t{thread}", "--no-undo")
    assert uids_with_message_id(alice, "INBOX", deleted_id) == []
    assert len(uids_with_message_id(alice, "[Gmail]/Trash", deleted_id)) == 1
    assert not any(t["id"] == thread for t in json_of(home, "threads", "--archive"))  # deleted is not archived
    assert local_message(home, thread, email)["folders"] == ["[Gmail]/Trash"]
    json_of(home, "delete", f"m{email}", "--folder", "[Gmail]/Trash", "--no-undo")
    assert uids_with_message_id(alice, "[Gmail]/Trash", deleted_id) == []
    assert uids_with_message_id(alice, "[Gmail]/All Mail", deleted_id) == []
    assert json_of(home, "search", "action", deleted_id.strip("<>").split("@")[0].split("-")[1]) == []


def test_a_sent_message_arrives_once_without_bcc_and_is_in_sent_once(servers, home, alice, bob, tls_context):
    subject = f"Sent once {int(time.time() * 1000)}"
    outcome = json_of(home, "send", "--to", f"Bob <{user_address(servers, RECIPIENT)}>", "--bcc", user_address(servers, "carol"),
                      "--subject", subject, "--body", "Hello Bob.\nSecond line.", "--undo", "0")
    assert outcome["state"] == "sent", outcome
    [uid] = wait_for(lambda: uids_with_subject(bob, "INBOX", subject))
    header = bob.uid("FETCH", uid, "(BODY.PEEK[HEADER])")[1][0][1].decode()
    assert "Bcc" not in header and outcome["messageId"] in header and "Message-ID" in header
    carol = imap_for(servers, tls_context, "carol")
    try:
        assert wait_for(lambda: uids_with_subject(carol, "INBOX", subject))  # the Bcc recipient got it
    finally:
        carol.logout()
    assert len(uids_with_message_id(alice, "[Gmail]/Sent Mail", outcome["messageId"])) == 1
    # A sync brings the Sent copy back as the same Email: no second copy, on the server or here.
    json_of(home, "sync", SENDER)
    json_of(home, "changes", "push")
    assert len(uids_with_message_id(alice, "[Gmail]/Sent Mail", outcome["messageId"])) == 1
    [hit] = json_of(home, "search", *subject.split())
    assert local_message(home, hit["threadId"], hit["emailId"])["folders"] == ["[Gmail]/Sent Mail"]


def test_mail_queued_while_postfix_is_down_goes_out_in_order_exactly_once(servers, home, bob):
    stamp = int(time.time() * 1000)
    subjects = [f"Queued {stamp} #{n}" for n in (1, 2, 3)]
    subprocess.run([str(MAILSERVERS), "stop-postfix"], check=True)
    try:
        for subject in subjects:
            outcome = json_of(home, "send", "--to", user_address(servers, RECIPIENT), "--subject", subject, "--body", "queued", "--undo", "0")
            assert outcome["state"] == "queued", outcome
        outbox = json_of(home, "outbox")
        assert [entry["subject"] for entry in outbox] == subjects
        assert all(entry["state"] == "queued" for entry in outbox)
    finally:
        subprocess.run([str(MAILSERVERS), "start"], check=True, capture_output=True)
    [report] = json_of(home, "outbox", "flush", "--now")
    # FIFO: submitted in the order they were queued. (The order they reach the mailbox is Postfix's:
    # its queue manager delivers the three over LMTP concurrently, so their UIDs may come in any order.)
    assert report["queue"]["sent"] == [entry["emailId"] for entry in outbox], report
    assert json_of(home, "outbox") == []
    json_of(home, "outbox", "flush", "--now")  # nothing is sent twice

    def arrived():
        found = [(int(uid), subject) for subject in subjects for uid in uids_with_subject(bob, "INBOX", subject)]
        return found if len(found) >= 3 else None
    found = wait_for(arrived)
    time.sleep(1)  # a duplicate would arrive within this
    found = arrived()
    assert sorted(subject for _, subject in found) == sorted(subjects)  # each exactly once


def test_a_refused_recipient_fails_at_once_with_the_servers_text(servers, home):
    result = tern(home, "send", "--to", f"nobody@{servers['TERN_TEST_DOMAIN']}", "--subject", "Refused", "--body", "x", "--undo", "0", "--json")
    assert result.returncode == 1
    outcome = json.loads(result.stdout)
    assert outcome["state"] == "failed" and "User unknown" in outcome["error"]
    json_of(home, "outbox", "flush", "--now")
    [entry] = json_of(home, "outbox")
    assert entry["state"] == "failed" and entry["retryCount"] == 0  # never retried


def test_a_failed_message_goes_back_to_its_own_draft_with_its_attachment(servers, home, tmp_path):
    """CO01-S5, CO02-T7 (issue 34): the draft a message was sent from stays, out of the Drafts list, until the message is
    sent; a failed one goes back into it whole (the attachment too) and leaves the Outbox, and a discarded one takes its
    draft with it."""
    attachment = tmp_path / "plan.pdf"
    attachment.write_bytes(b"%PDF-1.4 plan " + os.urandom(1024))
    subject = f"Refused then edited {int(time.time() * 1000)}"
    result = tern(home, "send", "--to", f"nobody@{servers['TERN_TEST_DOMAIN']}", "--subject", subject, "--body", "See the plan.",
                  "--attach", str(attachment), "--undo", "0", "--json")
    assert result.returncode == 1, result.stderr
    failed = json.loads(result.stdout)["emailId"]
    assert [d for d in json_of(home, "drafts", "list") if d["subject"] == subject] == [], "not a draft while in the Outbox"

    draft = json_of(home, "outbox", "edit", f"m{failed}")["draftId"]
    assert all(entry["emailId"] != failed for entry in json_of(home, "outbox")), "no copy left to be retried as well"
    [listed] = [d for d in json_of(home, "drafts", "list") if d["subject"] == subject]
    assert listed["id"] == draft
    shown = json_of(home, "drafts", "show", f"d{draft}")
    assert [a["filename"] for a in shown["attachments"]] == ["plan.pdf"], shown
    assert open(shown["attachments"][0]["path"], "rb").read() == attachment.read_bytes(), "the draft's own copy was kept"
    refused = tern(home, "outbox", "edit", f"m{failed}")
    assert refused.returncode != 0 and "has not failed" in refused.stderr, refused.stderr

    again = tern(home, "drafts", "send", f"d{draft}", "--undo", "0", "--json")
    assert again.returncode == 1
    second = json.loads(again.stdout)["emailId"]
    tern(home, "outbox", "discard", f"m{second}", check=True)
    json_of(home, "outbox", "flush", "--now")
    assert [d for d in json_of(home, "drafts", "list") if d["subject"] == subject] == [], "the discarded message took its draft"


def test_a_send_killed_after_the_server_accepted_it_is_not_sent_again(servers, home, bob):
    subject = f"Killed after accept {int(time.time() * 1000)}"
    env = dict(os.environ, TERN_HOME=str(home), TERN_FAULT="kill-after-smtp-accept")
    killed = subprocess.run([str(TERN), "send", "--to", user_address(servers, RECIPIENT), "--subject", subject, "--body", "once", "--undo", "0"],
                            env=env, capture_output=True, text=True, timeout=60)
    assert killed.returncode == -9
    [entry] = json_of(home, "outbox")
    assert entry["state"] == "sending" and entry["attemptStartedDate"]
    [report] = json_of(home, "outbox", "flush", "--now")
    assert report["queue"]["sent"] == [] and len(report["queue"]["failed"]) == 1
    [entry] = json_of(home, "outbox")
    assert entry["state"] == "failed" and "may have been delivered" in entry["error"]
    assert wait_for(lambda: uids_with_subject(bob, "INBOX", subject))
    time.sleep(1)
    assert len(uids_with_subject(bob, "INBOX", subject)) == 1
