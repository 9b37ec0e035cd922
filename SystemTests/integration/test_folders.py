"""Issue 36 Folders against the real Dovecot, each change checked with a second IMAP client (alice's own session): a move
leaves the folder for the one named (UID MOVE), a label is a copy that leaves the message where it is, both undo inside
their window without reaching the server; folders are created, renamed (their messages following, here and there) and
deleted, shown at once and made on the server when their undo window has passed (undone, never), a refusal of the
server dropping the change with its reason; the account's special folders are refused."""
import time
import uuid

from support.imap import uids_with_message_id
from support.messages import plant_one
from support.tern import json_of, tern

USER = "alice"


def plant(servers, imap, home):
    return plant_one(servers, imap, home, USER, "Folders")


def folders_of(home, thread, email):
    message = next(m for m in json_of(home, "thread", f"t{thread}", "--keep-unread")["messages"] if m["id"] == email)
    return message["folders"]


def server_folders(imap):
    names = []
    for line in imap.list()[1]:
        names.append(line.decode().rsplit(' "/" ', 1)[-1].strip('"'))
    return names


def test_a_move_leaves_the_folder_for_the_one_named_on_the_server(servers, home, alice):
    message_id, email, thread = plant(servers, alice, home)
    result = json_of(home, "move", f"t{thread}", "--to", "Receipts", "--no-undo")
    assert result["action"]["pushed"] == 1 and not result["action"]["failed"], result
    assert uids_with_message_id(alice, "INBOX", message_id) == []
    assert len(uids_with_message_id(alice, "Receipts", message_id)) == 1
    assert folders_of(home, thread, email) == ["Receipts"]
    json_of(home, "sync", USER)  # nothing comes back to the Inbox
    assert folders_of(home, thread, email) == ["Receipts"]
    # Moved back by message, naming the folder it is looked at in.
    json_of(home, "move", f"m{email}", "--folder", "Receipts", "--to", "INBOX", "--no-undo")
    assert uids_with_message_id(alice, "Receipts", message_id) == []
    assert len(uids_with_message_id(alice, "INBOX", message_id)) == 1


def test_a_move_undone_inside_its_window_never_reaches_the_server(servers, home, alice):
    message_id, email, thread = plant(servers, alice, home)
    result = json_of(home, "move", f"t{thread}", "--to", "Receipts")
    assert result["undo"]["token"], result
    assert folders_of(home, thread, email) == []
    undone = json_of(home, "undo")
    assert undone["threadIds"] == [thread]
    assert folders_of(home, thread, email) == ["INBOX"]
    time.sleep(6)  # past the window: the background push the move started finds nothing to do
    json_of(home, "changes", "push", "--now")
    assert len(uids_with_message_id(alice, "INBOX", message_id)) == 1
    assert uids_with_message_id(alice, "Receipts", message_id) == []


def test_a_label_is_a_copy_and_the_message_stays(servers, home, alice):
    message_id, email, thread = plant(servers, alice, home)
    result = json_of(home, "label", f"m{email}", "--add", "Receipts", "--no-undo")
    assert result["action"]["pushed"] == 1, result
    assert len(uids_with_message_id(alice, "INBOX", message_id)) == 1
    assert len(uids_with_message_id(alice, "Receipts", message_id)) == 1
    assert sorted(folders_of(home, thread, email)) == ["INBOX", "Receipts"]
    # A folder that is not there is refused before anything changes.
    refused = tern(home, "label", f"m{email}", "--add", "Nowhere")
    assert refused.returncode != 0 and "Nowhere" in refused.stderr


def local_folders(home):
    return [f["path"] for f in json_of(home, "folders")]


def past_the_window(home):
    """Past the undo window (5 s), then a push: what the background push did, or does now."""
    time.sleep(6)
    return json_of(home, "changes", "push", "--now")


def test_folders_are_created_renamed_and_deleted_on_the_server_after_the_undo_window(servers, home, alice):
    stamp = uuid.uuid4().hex[:8]
    name, renamed = f"Projects {stamp}", f"Done {stamp}"
    created = json_of(home, "folder", "create", name)
    assert created["undo"]["token"] and name in created["folders"], created
    assert name in local_folders(home), "shown at once"
    assert name not in server_folders(alice), "the server hears of it when the undo window has passed"
    past_the_window(home)
    assert name in server_folders(alice)
    json_of(home, "folder", "create", f"{name}/Sub", "--no-undo")
    assert f"{name}/Sub" in server_folders(alice)

    message_id, email, thread = plant(servers, alice, home)
    json_of(home, "move", f"t{thread}", "--to", name, "--no-undo")
    assert len(uids_with_message_id(alice, name, message_id)) == 1

    # A folder with a folder below it: both take the new name, here at once, there after the window.
    after = json_of(home, "folder", "rename", name, renamed)
    assert renamed in after["folders"] and f"{renamed}/Sub" in after["folders"] and name not in after["folders"], after
    assert renamed in local_folders(home) and name in server_folders(alice)
    past_the_window(home)
    listed = server_folders(alice)
    assert renamed in listed and f"{renamed}/Sub" in listed and name not in listed
    assert len(uids_with_message_id(alice, renamed, message_id)) == 1
    assert folders_of(home, thread, email) == [renamed], "the message follows its folder here too"

    # A folder with folders below it is not deleted; one holding mail only when the count is confirmed.
    refused = tern(home, "folder", "delete", renamed, "--yes")
    assert refused.returncode != 0 and "folders" in refused.stderr, refused.stderr
    json_of(home, "folder", "delete", f"{renamed}/Sub")
    refused = tern(home, "folder", "delete", renamed)
    assert refused.returncode != 0 and "1 message" in refused.stderr and "--yes" in refused.stderr, refused.stderr
    deleted = json_of(home, "folder", "delete", renamed, "--yes")
    assert renamed not in deleted["folders"] and renamed not in local_folders(home)
    assert renamed in server_folders(alice)
    past_the_window(home)
    listed = server_folders(alice)
    assert renamed not in listed and f"{renamed}/Sub" not in listed
    assert renamed not in local_folders(home)


def test_an_undone_folder_change_never_reaches_the_server(servers, home, alice):
    stamp = uuid.uuid4().hex[:8]
    kept, fresh, other = f"Kept {stamp}", f"Fresh {stamp}", f"Other {stamp}"
    json_of(home, "folder", "create", kept, "--no-undo")
    for args, shown, gone in (
        (["create", fresh], fresh, None),
        (["rename", kept, other], other, kept),
        (["delete", kept], None, kept),
    ):
        json_of(home, "folder", *args)
        listed = local_folders(home)
        assert (shown is None or shown in listed) and (gone is None or gone not in listed), (args, listed)
        undone = json_of(home, "undo")
        assert undone["folderChange"]["kind"] == args[0], undone
        listed = local_folders(home)
        assert kept in listed and fresh not in listed and other not in listed, (args, listed)
    past_the_window(home)
    listed = server_folders(alice)
    assert kept in listed and fresh not in listed and other not in listed


def test_a_folder_change_the_server_refuses_is_dropped_with_its_reason(servers, home, alice):
    stamp = uuid.uuid4().hex[:8]
    mine, taken = f"Mine {stamp}", f"Taken {stamp}"
    json_of(home, "folder", "create", mine, "--no-undo")
    # No background push: the push below is the one that meets the refusal, and reports it.
    assert tern(home, "folder", "rename", mine, taken, env={"TERN_NO_BACKGROUND_PUSH": "1"}).returncode == 0
    alice.create(f'"{taken}"')  # another client takes the name inside the window
    report = past_the_window(home)
    failed = [text for account in report for text in account["changes"]["failed"]]
    assert any(f"Couldn't rename the folder {mine} to {taken}" in text for text in failed), report
    listed = local_folders(home)
    assert mine in listed, "the folder keeps its name here as it does on the server"
    assert mine in server_folders(alice)


def test_the_accounts_special_folders_are_kept(servers, home):
    json_of(home, "sync", USER)
    for args in (["delete", "INBOX", "--yes"], ["delete", "[Gmail]/Trash", "--yes"], ["rename", "[Gmail]/Sent Mail", "Sent"],
                 ["create", "Receipts"]):
        result = tern(home, "folder", *args)
        assert result.returncode != 0, args
    assert tern(home, "folder", "rename", "Nowhere", "Elsewhere").returncode != 0
