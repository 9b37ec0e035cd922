"""Servers and folder names other than the plain ASCII Gmail layout (issue 22): folder names in modified UTF-7
(RFC 3501 section 5.1.3) and with `&` sync like any other, through every command that names a folder."""
import uuid

from support.imap import modified_utf7
from support.messages import raw_message
from support.servers import user_address
from support.tern import TERN, json_of, tern

USER = "dave"


def test_folders_named_outside_ascii_or_with_an_ampersand_sync_and_take_actions(servers, home, dave):
    stamp = uuid.uuid4().hex[:8]
    names = [f"Reçus {stamp}", f"R&D {stamp}", f"Документы {stamp}"]
    try:
        for index, name in enumerate(names):
            wire = '"' + modified_utf7(name) + '"'
            assert dave.create(wire)[0] == "OK"
            dave.append(wire, "", None, raw_message(user_address(servers, USER), f"In {stamp} {index}",
                                                    message_id=f"<in-{index}-{stamp}@example.org>"))
        json_of(home, "sync", USER)
        counts = {f["path"]: f["messageCount"] for f in json_of(home, "folders")}
        for name in names:
            assert counts.get(name) == 1, f"{name}: {counts.get(name)}"
        # A second sync asks each folder's STATUS by the same name (nothing new, nothing lost).
        json_of(home, "sync", USER)
        counts = {f["path"]: f["messageCount"] for f in json_of(home, "folders")}
        assert all(counts.get(name) == 1 for name in names)
        # An action in such a folder reaches the server (STORE after SELECT of the wire name).
        hits = json_of(home, "search", stamp)
        assert len(hits) == 3
        [target] = [h for h in hits if h["subject"] == f"In {stamp} 1"]
        json_of(home, "mark", "read", f"m{target['emailId']}")
        dave.select('"' + modified_utf7(names[1]) + '"')
        _, data = dave.search(None, "SEEN")
        assert data[0].split(), "\\Seen set in R&D on the server"
    finally:
        dave.select("INBOX")
        for name in names:
            dave.delete('"' + modified_utf7(name) + '"')


def test_watch_prints_each_line_into_a_pipe(servers, home):
    import os
    import select
    import subprocess

    watcher = subprocess.Popen([str(TERN), "sync", USER, "--watch", "--bodies", "none"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=dict(os.environ, TERN_HOME=str(home)))
    try:
        seen = b""
        while b"watching the Inbox" not in seen:
            ready, _, _ = select.select([watcher.stdout], [], [], 60)
            assert ready, f"nothing more reached the pipe while watching: {seen!r}"
            seen += watcher.stdout.read1(65536)
    finally:
        watcher.kill()
        watcher.wait()


def test_mark_unread_on_a_thread_leaves_the_users_own_replies_read(servers, home, dave):
    """Issue 22: marking a conversation unread touches the mail the user received, as Gmail does; the user's own reply
    in Sent keeps its \\Seen (a message named on its own is marked whoever wrote it)."""
    stamp = uuid.uuid4().hex[:8]
    first = f"<question-{stamp}@example.org>"
    dave.append("INBOX", "(\\Seen)", None, raw_message(user_address(servers, USER), f"Question {stamp}", message_id=first))
    reply = raw_message(user_address(servers, USER), f"Re: Question {stamp}", message_id=f"<reply-{stamp}@tern.test>", in_reply_to=first,
                        sender=user_address(servers, USER))
    dave.append('"[Gmail]/Sent Mail"', "(\\Seen)", None, reply)
    json_of(home, "sync", USER)
    [thread] = [t for t in json_of(home, "threads", "--limit", "100") if t["subject"] == f"Question {stamp}"]
    assert json_of(home, "thread", f"t{thread['id']}", "--keep-unread")["messageCount"] == 2, "the question and the reply"
    json_of(home, "mark", "unread", f"t{thread['id']}")

    def seen(mailbox, subject):
        dave.select(mailbox)
        _, data = dave.search(None, "SUBJECT", f'"{subject}"')
        [number] = data[0].split()
        _, flags = dave.fetch(number, "(FLAGS)")
        return b"\\Seen" in flags[0]

    assert not seen("INBOX", f"Question {stamp}"), "the received message is unread on the server"
    assert seen('"[Gmail]/Sent Mail"', f"Re: Question {stamp}"), "the user's own reply stays read"
    # Named on its own, the user's reply is marked unread too.
    [own] = [h for h in json_of(home, "search", f"Re: Question {stamp}") if h["subject"] == f"Re: Question {stamp}"]
    json_of(home, "mark", "unread", f"m{own['emailId']}")
    assert not seen('"[Gmail]/Sent Mail"', f"Re: Question {stamp}")
    dave.select("INBOX")


def test_archive_reports_what_it_moved_when_the_server_refuses(servers, home, dave):
    """Issue 22: an archive the server refuses (its folder was deleted by another client) reports 0 of 1 moved and exits
    non-zero, instead of "archived 1 message"."""
    stamp = uuid.uuid4().hex[:8]
    folder = f"Projects {stamp}"
    assert dave.create(f'"{folder}"')[0] == "OK"
    dave.append(f'"{folder}"', "", None, raw_message(user_address(servers, USER), f"Plan {stamp}", message_id=f"<plan-{stamp}@example.org>"))
    json_of(home, "sync", USER)
    [hit] = [h for h in json_of(home, "search", stamp) if h["subject"] == f"Plan {stamp}"]
    dave.delete(f'"{folder}"')
    result = tern(home, "archive", f"t{hit['threadId']}", "--folder", folder, "--no-undo")
    assert result.returncode != 0
    assert "archived 0 of 1 message" in result.stdout, result.stdout
    assert "failed and undone" in result.stderr


def test_sync_exits_non_zero_naming_a_folder_the_server_refused(servers, home, dave):
    """Issue 22: a folder the server cannot open fails `tern sync` (exit 1, the folder named on stderr) after every
    other folder was synced; the rest of the mailbox is stored."""
    import pathlib
    import shutil

    stamp = uuid.uuid4().hex[:8]
    broken = f"Broken {stamp}"
    assert dave.create(f'"{broken}"')[0] == "OK"
    dave.append("INBOX", "", None, raw_message(user_address(servers, USER), f"Still synced {stamp}", message_id=f"<still-{stamp}@example.org>"))
    # The folder's maildir made unreadable for the server itself (it answers SELECT and STATUS with NO [SERVERBUG]).
    maildir = pathlib.Path(servers["TERN_MAILSERVERS_DIR"]) / "mail" / USER / "Maildir" / broken
    for part in ("cur", "new"):
        shutil.rmtree(maildir / part)
        (maildir / part).write_text("not a directory")
    try:
        result = tern(home, "sync", USER)
        assert result.returncode == 1, result.stderr
        assert f"could not be synced: {USER}/{broken} (" in result.stderr, result.stderr
        assert [h for h in json_of(home, "search", stamp) if h["subject"] == f"Still synced {stamp}"], "the Inbox was synced"
    finally:
        for part in ("cur", "new"):
            (maildir / part).unlink()
            (maildir / part).mkdir()
        dave.delete(f'"{broken}"')


def test_an_empty_folder_is_not_bootstrapped_again_on_every_sync(servers, home, dave):
    """Issue 22: an empty folder had no forward cursor (no message to move it), so every sync took it for a new folder
    and selected it again; once synced, the pipelined STATUS settles it like any unchanged folder. Mail that arrives
    in it later is still fetched."""
    stamp = uuid.uuid4().hex[:8]
    empty = f"Empty {stamp}"
    assert dave.create(f'"{empty}"')[0] == "OK"
    try:
        json_of(home, "sync", USER)
        again = tern(home, "sync", USER, "--json")
        assert again.returncode == 0, again.stderr
        selected = [line for line in again.stderr.splitlines() if '"selectingFolder"' in line]
        assert not [line for line in selected if f'"{empty}"' in line], selected
        dave.append(f'"{empty}"', "", None, raw_message(user_address(servers, USER), f"Later {stamp}", message_id=f"<later-{stamp}@example.org>"))
        json_of(home, "sync", USER)
        counts = {f["path"]: f["messageCount"] for f in json_of(home, "folders")}
        assert counts.get(empty) == 1
    finally:
        dave.delete(f'"{empty}"')
