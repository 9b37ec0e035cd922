"""Issue 36 Snooze against the real Dovecot, checked with a second IMAP client: the conversation leaves the Inbox for a
Snoozed folder Tern creates, carrying its wake time as the keyword $SnoozedUntil<seconds>; `tern snoozed` lists it with
that time; when the time comes (here: another client moves the keyword into the past) a second Tern, which only synced
the account, wakes it: back in the Inbox, unread, without the keyword, and out of Snoozed, on top of the Inbox (above
newer mail) in both Terns by the $WokenAt<seconds> keyword it carries back."""
import re
import time
from datetime import datetime

from support.accounts import add_account
from support.imap import uids_with_message_id
from support.messages import plant_one
from support.tern import json_of, tern

USER = "alice"


def plant(servers, imap, home):
    return plant_one(servers, imap, home, USER, "Snooze", flags="(\\Seen)")


def stamp_of(message_id):
    """The word `plant_one` put in the subject: `<snooze-STAMP@example.org>`."""
    return message_id.strip("<>").split("@")[0].split("-")[1]


def server_flags(imap, folder, message_id):
    [uid] = uids_with_message_id(imap, folder, message_id)
    return uid, imap.uid("FETCH", uid, "(FLAGS)")[1][0].decode()


def test_snooze_leaves_for_snoozed_and_a_second_tern_wakes_it(servers, home, alice, tmp_path):
    message_id, email, thread = plant(servers, alice, home)
    before = time.time()
    result = json_of(home, "snooze", f"t{thread}", "--until", "in 2h", "--no-undo")
    assert result["removal"]["action"]["pushed"] >= 1 and not result["removal"]["action"]["failed"], result
    assert uids_with_message_id(alice, "INBOX", message_id) == []
    uid, flags = server_flags(alice, "Snoozed", message_id)
    [seconds] = [int(s) for s in re.findall(r"\$SnoozedUntil(\d+)", flags)]
    assert before + 7200 - 5 <= seconds <= time.time() + 7200 + 5, flags
    assert "\\Seen" in flags
    [listed] = [s for s in json_of(home, "snoozed") if s["threadId"] == thread]
    assert datetime.fromisoformat(listed["wake"].replace("Z", "+00:00")).timestamp() == seconds

    # Newer mail arrives meanwhile: the woken conversation still comes back above it.
    time.sleep(1.1)
    _, _, newer = plant_one(servers, alice, home, USER, "Newer")

    # The time comes: another client says so on the server (the keyword is the record every client reads).
    alice.select('"Snoozed"')
    alice.uid("STORE", uid, "-FLAGS", f"($SnoozedUntil{seconds})")
    alice.uid("STORE", uid, "+FLAGS", f"($SnoozedUntil{int(time.time()) - 5})")
    second = tmp_path / "second"
    second.mkdir()
    add_account(second, servers, USER)
    json_of(second, "sync", USER)
    json_of(second, "changes", "push")
    [inbox_uid] = uids_with_message_id(alice, "INBOX", message_id)
    woken = alice.uid("FETCH", inbox_uid, "(FLAGS)")[1][0].decode()
    assert "\\Seen" not in woken and "SnoozedUntil" not in woken, woken
    assert re.search(r"\$WokenAt\d+", woken), "the time it woke travels with it, for every Tern's list"
    assert uids_with_message_id(alice, "Snoozed", message_id) == []
    # On top of the Inbox, in the Tern that woke it and in the first one once it syncs.
    json_of(second, "sync", USER)
    [second_thread] = [hit["threadId"] for hit in json_of(second, "search", stamp_of(message_id))]
    assert [t["id"] for t in json_of(second, "threads", "--account", USER)][0] == second_thread
    # The first Tern agrees once it syncs: in the Inbox, on top, nothing snoozed.
    json_of(home, "sync", USER)
    assert not [s for s in json_of(home, "snoozed") if s["threadId"] == thread]
    # (Its thread, looked up again: a sync that met Snoozed's side of the move before the Inbox's keeps the message
    # under a new thread.)
    [first_thread] = [hit["threadId"] for hit in json_of(home, "search", stamp_of(message_id))]
    inbox = [t["id"] for t in json_of(home, "threads", "--account", USER)]
    assert inbox[0] == first_thread and newer in inbox, (inbox, first_thread, newer)


def test_a_time_that_cannot_be_read_is_refused_before_anything_moves(servers, home, alice):
    message_id, email, thread = plant(servers, alice, home)
    for when in ("someday", "yesterday 8:00", "in 2x", "2001-01-01T00:00Z"):
        result = tern(home, "snooze", f"t{thread}", "--until", when)
        assert result.returncode != 0 and result.stderr, when
    assert len(uids_with_message_id(alice, "INBOX", message_id)) == 1
