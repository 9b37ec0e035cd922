"""Issue 36 Folders against the real Dovecot, each change checked with a second IMAP client (alice's own session): a move
leaves the folder for the one named (UID MOVE), a label is a copy that leaves the message where it is, both undo inside
their window without reaching the server; folders are created, renamed (their messages following, here and there) and
deleted on the server, and the account's special folders are refused."""
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


def test_folders_are_created_renamed_and_deleted_on_the_server(servers, home, alice):
    stamp = uuid.uuid4().hex[:8]
    name, renamed = f"Projects {stamp}", f"Done {stamp}"
    created = json_of(home, "folder", "create", name)
    assert name in created and name in server_folders(alice)
    assert any(f["path"] == name for f in json_of(home, "folders"))

    message_id, email, thread = plant(servers, alice, home)
    json_of(home, "move", f"t{thread}", "--to", name, "--no-undo")
    assert len(uids_with_message_id(alice, name, message_id)) == 1

    after = json_of(home, "folder", "rename", name, renamed)
    assert renamed in after and name not in after
    listed = server_folders(alice)
    assert renamed in listed and name not in listed
    assert len(uids_with_message_id(alice, renamed, message_id)) == 1
    assert folders_of(home, thread, email) == [renamed], "the message follows its folder here too"

    refused = tern(home, "folder", "delete", renamed)
    assert refused.returncode != 0 and "--yes" in refused.stderr, refused.stderr
    assert renamed in server_folders(alice)
    json_of(home, "folder", "delete", renamed, "--yes")
    assert renamed not in server_folders(alice)
    assert not any(f["path"] == renamed for f in json_of(home, "folders"))


def test_the_accounts_special_folders_are_kept(servers, home):
    json_of(home, "sync", USER)
    for args in (["delete", "INBOX", "--yes"], ["delete", "[Gmail]/Trash", "--yes"], ["rename", "[Gmail]/Sent Mail", "Sent"],
                 ["create", "Receipts"]):
        result = tern(home, "folder", *args)
        assert result.returncode != 0, args
    assert tern(home, "folder", "rename", "Nowhere", "Elsewhere").returncode != 0
