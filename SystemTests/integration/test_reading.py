"""Reading mail against the real Dovecot (FR-ED-01..05, AC-U-08..10b): opening a thread marks it read on
the server, archive and delete inside their undo window leave the server untouched and reach it after,
also when the process that would push them was killed, large threads page by 25 with the latest unread,
remote images and trusted senders with trackers still stripped, and attachment warnings."""
import subprocess
import time
import uuid

from support.imap import flags_of, uids_with_message_id
from support.messages import plant_thread, raw_message, thread_id_of
from support.servers import user_address
from support.tern import json_of, tern
from support.waiting import wait_for

USER = "dave"


def test_opening_a_thread_marks_it_read_on_the_server(servers, home, dave):
    stamp, root = plant_thread(servers, dave, 3, unread=(1, 2))
    json_of(home, "sync", USER)
    thread = thread_id_of(home, stamp)
    opened = json_of(home, "thread", f"t{thread}")
    assert [m["collapsed"] for m in opened["messages"]] == [True, False, False]
    # Every key is there for every message; what a collapsed one does not carry is null.
    assert opened["messages"][0]["html"] is None and opened["messages"][0]["sendError"] is None
    assert all(m["isRead"] for m in opened["messages"])
    assert all("\\Seen" in flags_of(dave, "INBOX", f"<reply-{i}-{stamp}@example.org>") for i in (1, 2))


def test_an_archive_undone_inside_its_window_leaves_the_server_untouched(servers, home, dave):
    stamp, root = plant_thread(servers, dave, 1)
    json_of(home, "sync", USER)
    thread = thread_id_of(home, stamp)
    result = json_of(home, "archive", f"t{thread}")
    assert result["undo"] and result["action"]["pushed"] == 0
    assert not any(t["id"] == thread for t in json_of(home, "threads", "--limit", "500"))  # gone locally at once
    undone = json_of(home, "undo")
    assert undone["threadIds"] == [thread]
    assert any(t["id"] == thread for t in json_of(home, "threads", "--limit", "500"))
    time.sleep(6.5)  # past the window: the background push finds nothing to send
    assert len(uids_with_message_id(dave, "INBOX", root)) == 1
    assert uids_with_message_id(dave, "[Gmail]/All Mail", root) == []
    failing = tern(home, "undo")
    assert failing.returncode != 0 and "nothing to undo" in failing.stderr


def test_a_delete_reaches_the_server_when_its_window_ends(servers, home, dave):
    stamp, root = plant_thread(servers, dave, 1)
    json_of(home, "sync", USER)
    thread = thread_id_of(home, stamp)
    json_of(home, "delete", f"t{thread}")
    assert len(uids_with_message_id(dave, "INBOX", root)) == 1  # inside the window: untouched
    assert wait_for(lambda: uids_with_message_id(dave, "INBOX", root) == [], timeout=15)  # then pushed in the background
    assert len(uids_with_message_id(dave, "[Gmail]/Trash", root)) == 1


def test_an_archive_whose_pusher_was_killed_in_the_window_is_pushed_by_the_next_run(servers, home, dave):
    stamp, root = plant_thread(servers, dave, 1)
    json_of(home, "sync", USER)
    thread = thread_id_of(home, stamp)
    json_of(home, "archive", f"t{thread}")
    # The process that was to push it dies (SIGKILL) inside the window.
    subprocess.run(["pkill", "-KILL", "-f", "changes push --after"], check=False)
    time.sleep(6)
    assert len(uids_with_message_id(dave, "INBOX", root)) == 1, "nothing pushed it"
    json_of(home, "sync", USER)  # the next run pushes what the user meant
    assert uids_with_message_id(dave, "INBOX", root) == []
    assert not any(t["id"] == thread for t in json_of(home, "threads", "--limit", "500"))


def test_a_sixty_message_thread_pages_by_25_with_the_latest_unread(servers, home, dave):
    stamp, root = plant_thread(servers, dave, 60, unread=(5,))
    json_of(home, "sync", USER)
    thread = thread_id_of(home, stamp)
    first = json_of(home, "thread", f"t{thread}", "--keep-unread")
    assert first["messageCount"] == 60 and len(first["messages"]) == 26
    assert first["hasEarlier"] and first["earlierCount"] == 34
    assert first["messages"][0]["text"].strip() == f"Message 5 of {stamp}."  # the unread one, expanded
    assert [m["snippet"] for m in first["messages"][1:]] == [f"Message {i} of {stamp}." for i in range(35, 60)]
    more = json_of(home, "thread", f"t{thread}", "--keep-unread", "--earlier", "1")
    assert len(more["messages"]) == 51 and more["earlierCount"] == 9


def test_a_500_message_thread_opens_on_its_newest_25(servers, home, dave):
    stamp, root = plant_thread(servers, dave, 500)
    json_of(home, "sync", USER)
    thread = thread_id_of(home, stamp)
    first = json_of(home, "thread", f"t{thread}")
    assert first["messageCount"] == 500 and len(first["messages"]) == 25 and first["earlierCount"] == 475
    assert [m["collapsed"] for m in first["messages"]] == [True] * 24 + [False]


NEWSLETTER = """<p>Sale <img src="https://images.shop.example/banner.png" alt="banner"></p>
<img src="https://www.google-analytics.com/collect?v=1&amp;t=event" width="1" height="1" alt="">
<script>alert(1)</script>"""


def test_remote_images_load_per_message_or_for_a_trusted_sender_and_trackers_never(servers, home, dave):
    stamp = uuid.uuid4().hex[:10]
    dave.append("INBOX", "", None, raw_message(user_address(servers, USER), f"Sale {stamp}", message_id=f"<sale-{stamp}@shop.example>",
                                               html=NEWSLETTER, sender="news@shop.example"))
    json_of(home, "sync", USER, "--bodies", "all")
    thread = thread_id_of(home, stamp)
    [blocked] = json_of(home, "thread", f"t{thread}")["messages"]
    assert blocked["remoteImagesBlocked"] == 1 and not blocked["remoteImagesLoaded"] and blocked["trackersBlocked"] == 1
    assert "images.shop.example" not in blocked["html"] and "<script" not in blocked["html"]
    [loaded] = json_of(home, "thread", f"t{thread}", "--load-remote")["messages"]
    assert loaded["remoteImagesLoaded"] and "images.shop.example/banner.png" in loaded["html"]
    assert loaded["trackersBlocked"] == 1 and "google-analytics" not in loaded["html"]
    json_of(home, "trust", "add", "News@Shop.example")
    assert [s["senderEmail"] for s in json_of(home, "trust", "list")] == ["news@shop.example"]
    [trusted] = json_of(home, "thread", f"t{thread}")["messages"]
    assert trusted["remoteImagesLoaded"] and trusted["trackersBlocked"] == 1
    tern(home, "trust", "remove", "news@shop.example", check=True)
    [again] = json_of(home, "thread", f"t{thread}")["messages"]
    assert not again["remoteImagesLoaded"]


def test_attachment_warnings_and_the_metered_override(servers, home, dave):
    stamp = uuid.uuid4().hex[:10]
    big = b"\0" * (30 * 1024 * 1024)
    dave.append("INBOX", "", None, raw_message(user_address(servers, USER), f"Files {stamp}", message_id=f"<files-{stamp}@example.org>",
                                               attachments=[("setup.exe", b"MZ" + b"\0" * 100), ("photos.zip", big)]))
    json_of(home, "sync", USER)
    thread = thread_id_of(home, stamp)
    tern(home, "settings", "set", "metered", "no", check=True)
    [message] = json_of(home, "thread", f"t{thread}")["messages"]
    warnings = {a["filename"]: a["warnings"] for a in message["attachments"]}
    assert warnings == {"setup.exe": ["This file is a Windows executable."], "photos.zip": ["This archive may contain executable files."]}
    tern(home, "settings", "set", "metered", "yes", check=True)
    [message] = json_of(home, "thread", f"t{thread}")["messages"]
    warnings = {a["filename"]: a["warnings"] for a in message["attachments"]}
    assert warnings["photos.zip"] == ["This archive may contain executable files.", "This attachment is 30 MB. Download on cellular?"]
    assert warnings["setup.exe"] == ["This file is a Windows executable."]  # small: no metered warning
    assert json_of(home, "settings", "get", "metered") == {"metered": "yes"}
    refused = tern(home, "settings", "set", "undo-send-delay", "7")
    assert refused.returncode != 0 and "one of: 0, 5, 10, 15, 30" in refused.stderr


def test_an_empty_conversation_is_an_error_with_the_spec_text(servers, home):
    missing = tern(home, "thread", "t999999")
    assert missing.returncode != 0 and "not found" in missing.stderr


def test_ids_carry_their_kind_and_a_bare_number_is_refused_naming_the_forms(servers, home):
    """Issue 33: `t12` is a thread and `m34` a message in every command; a bare number is never guessed."""
    for arguments in (["thread", "12"], ["archive", "12"], ["reply", "12"], ["drafts", "show", "12"]):
        refused = tern(home, *arguments)
        assert refused.returncode != 0, arguments
        assert "bare number" in refused.stderr and "12 for" in refused.stderr, refused.stderr
    wrong_kind = tern(home, "reply", "t12")
    assert wrong_kind.returncode != 0 and "m12 for message 12" in wrong_kind.stderr, wrong_kind.stderr
