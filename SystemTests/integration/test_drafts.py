"""Drafts and undo-send against the real Dovecot and Postfix (FR-COMP-01 "Draft lifecycle", FR-COMP-02,
issue 16): one server version however often a draft is saved, a sent draft gone locally and from the
server, another client's version taken as authoritative, a draft another client wrote adopted without a
duplicate, Undo sending nothing, and a process SIGKILLed in its undo window leaving a draft, here and in
the server's Drafts, that nothing sends."""
import email
import email.policy
import json
import os
import signal
import subprocess
import time
import uuid

from support.imap import imap_for, uids_with_subject
from support.servers import user_address
from support.tern import TERN, json_of, tern
from support.waiting import wait_for

SENDER = "alice"
RECIPIENT = "bob"
USER = SENDER  # the `home` fixture's account

DRAFTS = "[Gmail]/Drafts"  # the test Dovecot is laid out as Gmail; Tern finds it by its \Drafts attribute


def stamp():
    return uuid.uuid4().hex[:10]


def draft_copies(imap, subject):
    imap.select(f'"{DRAFTS}"')
    return imap.uid("SEARCH", None, "SUBJECT", f'"{subject}"')[1][0].split()


def fetch(imap, uid):
    return email.message_from_bytes(imap.uid("FETCH", uid, "(BODY.PEEK[])")[1][0][1], policy=email.policy.default)


def save_draft(home, servers, subject, body):
    saved = json_of(home, "compose", "--draft", "--to", user_address(servers, RECIPIENT), "--subject", subject, "--body", body)
    assert saved["onServer"], saved
    return saved["draftId"]


def test_saving_a_draft_twenty_times_leaves_one_version_on_the_server(servers, home, tls_context):
    subject = f"Twenty saves {stamp()}"
    draft = save_draft(home, servers, subject, "version 0")
    for version in range(1, 20):
        saved = json_of(home, "drafts", "edit", f"d{draft}", "--body", f"version {version}")
        assert saved["revision"] == version + 1 and saved["onServer"], saved
    again = json_of(home, "drafts", "edit", f"d{draft}", "--body", "version 19")
    assert not again["changed"] and again["revision"] == 20

    imap = imap_for(servers, tls_context, SENDER)
    try:
        [uid] = draft_copies(imap, subject)
        copy = fetch(imap, uid)
        assert copy.get_body(("plain",)).get_content().strip() == "version 19"
        assert "\\Draft" in imap.uid("FETCH", uid, "(FLAGS)")[1][0].decode()
    finally:
        imap.logout()

    json_of(home, "sync", SENDER)
    listed = [d for d in json_of(home, "drafts", "list") if d["subject"] == subject]
    assert [(d["origin"], d["id"]) for d in listed] == [("local", draft)], listed


def test_sending_a_draft_removes_it_here_and_on_the_server(servers, home, tls_context, bob):
    subject = f"Draft sent {stamp()}"
    draft = save_draft(home, servers, subject, "Ready to go.")
    outcome = json_of(home, "drafts", "send", f"d{draft}", "--undo", "0")
    assert outcome["state"] == "sent", outcome
    assert wait_for(lambda: uids_with_subject(bob, "INBOX", subject))
    imap = imap_for(servers, tls_context, SENDER)
    try:
        assert draft_copies(imap, subject) == []
    finally:
        imap.logout()
    json_of(home, "sync", SENDER)
    assert [d for d in json_of(home, "drafts", "list") if d["subject"] == subject] == []


def test_a_draft_another_client_changed_is_taken_as_authoritative(servers, home, tls_context):
    subject = f"Edited elsewhere {stamp()}"
    draft = save_draft(home, servers, subject, "Written in Tern.")
    imap = imap_for(servers, tls_context, SENDER)
    try:
        [uid] = draft_copies(imap, subject)
        theirs = fetch(imap, uid)
        theirs.replace_header("Subject", subject + " (phone)")
        theirs.get_body(("plain",)).set_content("Rewritten on the phone.")
        imap.append(f'"{DRAFTS}"', "(\\Draft \\Seen)", None, theirs.as_bytes())
        imap.uid("STORE", uid, "+FLAGS.SILENT", "(\\Deleted)")
        imap.uid("EXPUNGE", uid)
    finally:
        imap.logout()

    json_of(home, "sync", SENDER)
    shown = json_of(home, "drafts", "show", f"d{draft}")
    assert shown["subject"] == subject + " (phone)"
    assert shown["body"].strip() == "Rewritten on the phone."
    listed = [d for d in json_of(home, "drafts", "list") if d["subject"].startswith(subject)]
    assert [(d["origin"], d["id"]) for d in listed] == [("local", draft)], listed


def test_a_draft_written_by_another_client_is_adopted_without_a_duplicate(servers, home, tls_context):
    subject = f"From the phone {stamp()}"
    message = email.message.EmailMessage()
    message["From"] = user_address(servers, SENDER)
    message["To"] = user_address(servers, RECIPIENT)
    message["Subject"] = subject
    message["Message-ID"] = f"<{stamp()}@phone.example>"
    message.set_content("Started on the phone.")
    imap = imap_for(servers, tls_context, SENDER)
    try:
        imap.append(f'"{DRAFTS}"', "(\\Draft)", None, message.as_bytes())
    finally:
        imap.logout()

    json_of(home, "sync", SENDER)
    [server_draft] = [d for d in json_of(home, "drafts", "list") if d["subject"] == subject]
    assert server_draft["origin"] == "server"
    saved = json_of(home, "drafts", "edit", f"m{server_draft['id']}", "--body", "Finished in Tern.")
    assert saved["onServer"]

    imap = imap_for(servers, tls_context, SENDER)
    try:
        [uid] = draft_copies(imap, subject)
        assert fetch(imap, uid).get_body(("plain",)).get_content().strip() == "Finished in Tern."
    finally:
        imap.logout()
    json_of(home, "sync", SENDER)
    listed = [d for d in json_of(home, "drafts", "list") if d["subject"] == subject]
    assert [(d["origin"], d["id"]) for d in listed] == [("local", saved["draftId"])], listed


def sending(home, servers, subject, undo):
    return subprocess.Popen([str(TERN), "send", "--to", user_address(servers, RECIPIENT), "--subject", subject,
                             "--body", "Maybe not.", "--undo", str(undo), "--json"],
                            env=dict(os.environ, TERN_HOME=str(home)), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def held(home):
    return [e for e in json_of(home, "outbox") if e.get("holdUntil")]


def test_undo_in_the_window_sends_nothing_and_leaves_a_draft(servers, home, bob):
    subject = f"Undone {stamp()}"
    process = sending(home, servers, subject, 30)
    assert wait_for(lambda: held(home))
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert json.loads(out)["undone"] is True
    json_of(home, "sync", SENDER)
    assert [d["subject"] for d in json_of(home, "drafts", "list") if d["subject"] == subject] == [subject]
    assert json_of(home, "outbox") == []
    time.sleep(2)
    assert uids_with_subject(bob, "INBOX", subject) == []


def process_state(pid):
    """The state letter of /proc/PID/stat: T while stopped."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def test_ctrl_z_pauses_the_undo_window_and_fg_resumes_it(servers, home, bob):
    """FR-COMP-02 "App enters background during undo window: Timer pauses": SIGTSTP (Ctrl-Z) pauses the window before the
    process stops; nothing is sent while it is stopped, however long; SIGCONT (fg) resumes it from what was left."""
    subject = f"Stopped in the window {stamp()}"
    process = sending(home, servers, subject, 5)
    assert wait_for(lambda: held(home))
    process.send_signal(signal.SIGTSTP)
    assert wait_for(lambda: process_state(process.pid) == "T"), "stopped"
    time.sleep(8)  # longer than the whole window
    assert uids_with_subject(bob, "INBOX", subject) == []
    assert held(home), "still held"
    resumed = time.monotonic()
    process.send_signal(signal.SIGCONT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert json.loads(out)["state"] == "sent"
    assert time.monotonic() - resumed >= 1.0, "the window went on from what was left"
    assert len(wait_for(lambda: uids_with_subject(bob, "INBOX", subject))) == 1


def test_a_process_killed_in_its_undo_window_leaves_a_draft_that_nothing_sends(servers, home, tls_context, bob):
    subject = f"Killed in the window {stamp()}"
    process = sending(home, servers, subject, 4)
    assert wait_for(lambda: held(home))
    process.kill()
    process.wait(timeout=10)
    time.sleep(5)  # past the window
    json_of(home, "sync", SENDER)
    json_of(home, "sync", SENDER)  # a later sync too

    [draft] = [d for d in json_of(home, "drafts", "list") if d["subject"] == subject]
    assert draft["origin"] == "local" and draft["sync"] == "synced", draft
    assert json_of(home, "outbox") == []
    imap = imap_for(servers, tls_context, SENDER)
    try:
        assert len(draft_copies(imap, subject)) == 1
    finally:
        imap.logout()
    time.sleep(2)
    assert uids_with_subject(bob, "INBOX", subject) == []


def test_expiry_sends_exactly_once_with_a_sent_copy(servers, home, tls_context, bob):
    subject = f"After the window {stamp()}"
    process = sending(home, servers, subject, 2)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert json.loads(out)["state"] == "sent"
    assert len(wait_for(lambda: uids_with_subject(bob, "INBOX", subject))) == 1
    imap = imap_for(servers, tls_context, SENDER)
    try:
        assert len(wait_for(lambda: uids_with_subject(imap, "[Gmail]/Sent Mail", subject))) == 1
        assert draft_copies(imap, subject) == []
    finally:
        imap.logout()
    assert [d for d in json_of(home, "drafts", "list") if d["subject"] == subject] == []


def test_compose_without_a_terminal_says_what_to_give(servers, home):
    result = tern(home, "compose", "--to", user_address(servers, RECIPIENT))
    assert result.returncode != 0
    assert "--print, --draft or --send" in result.stderr
    closed = json_of(home, "compose", "--draft")
    assert closed == {"saved": False}


def on_terminal(home, args, answers, env_extra=None, timeout=60):
    """Runs tern with a terminal (a pty) as stdin and stdout, typing each answer once its prompt text appears."""
    import pty
    import select
    primary, secondary = pty.openpty()
    env = dict(os.environ, TERN_HOME=str(home), **(env_extra or {}))
    process = subprocess.Popen([str(TERN), *args], stdin=secondary, stdout=secondary, stderr=subprocess.PIPE, env=env, close_fds=True)
    os.close(secondary)
    output = b""
    deadline = time.time() + timeout
    pending = list(answers)
    while time.time() < deadline:
        ready, _, _ = select.select([primary], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(primary, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        if pending and pending[0][0].encode() in output:
            os.write(primary, pending.pop(0)[1].encode())
        if process.poll() is not None and not ready:
            break
    process.wait(timeout=10)
    os.close(primary)
    return process.returncode, output.decode(errors="replace"), process.stderr.read().decode()


def test_the_editor_flow_saves_a_draft_and_u_undoes_a_send(servers, home, tmp_path, bob):
    subject = f"From the editor {stamp()}"
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\nprintf 'To: {user_address(servers, RECIPIENT)}\\nSubject: {subject}\\n\\nWritten in the editor.\\n' > \"$1\"\n")
    editor.chmod(0o755)
    code, output, errors = on_terminal(home, ["compose"], [("discard?", "d\n")], {"EDITOR": str(editor)})
    assert code == 0, output + errors
    assert "saved" in output, output
    [draft] = [d for d in json_of(home, "drafts", "list") if d["subject"] == subject]
    shown = json_of(home, "drafts", "show", f"d{draft['id']}")
    assert shown["body"].strip() == "Written in the editor." and [a["address"] for a in shown["to"]] == [user_address(servers, RECIPIENT)]

    code, output, errors = on_terminal(home, ["drafts", "send", f"d{draft['id']}", "--undo", "30"], [("to undo", "u")])
    assert code == 0, output + errors
    assert "undone" in output and "Sending in" in output, output
    assert [d["id"] for d in json_of(home, "drafts", "list") if d["subject"] == subject] == [draft["id"]]
    time.sleep(2)
    assert uids_with_subject(bob, "INBOX", subject) == []


def test_the_editor_file_is_owner_only_from_the_start_and_inside_tern_home(servers, home, tmp_path):
    """Issue 32: the `$EDITOR` file is created 0600 in `$TERN_HOME/tmp`, not written to /tmp and chmodded after."""
    seen = tmp_path / "seen"
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\nstat -c '%a' \"$1\" > '{seen}'\nprintf '%s\\n' \"$1\" >> '{seen}'\n")
    editor.chmod(0o755)
    code, output, errors = on_terminal(home, ["compose"], [("discard?", "q\n")], {"EDITOR": str(editor)})
    assert code == 0, output + errors
    mode, path = seen.read_text().splitlines()
    assert mode == "600"
    assert os.path.dirname(path) == str(home / "tmp"), path
    assert oct(os.stat(home / "tmp").st_mode & 0o777) == "0o700"
    assert not os.path.exists(path), "removed once read back"


def test_a_linked_attachment_is_sent_as_it_was_when_attached(servers, home, tmp_path, bob):
    """Issue 32: attaching a symbolic link copies the bytes it names, at once; the user's file keeps its mode, and
    neither a later change to that file nor the link pointed elsewhere changes what is sent."""
    subject = f"Linked attachment {stamp()}"
    original, other, link = tmp_path / "report.txt", tmp_path / "other.txt", tmp_path / "link.txt"
    original.write_bytes(b"as attached")
    other.write_bytes(b"another file")
    original.chmod(0o644)
    link.symlink_to(original)
    saved = json_of(home, "compose", "--draft", "--to", user_address(servers, RECIPIENT), "--subject", subject, "--body", "Attached.",
                    "--attach", str(link))
    assert oct(original.stat().st_mode & 0o777) == "0o644"
    original.write_bytes(b"changed later")
    link.unlink()
    link.symlink_to(other)

    outcome = json_of(home, "drafts", "send", f"d{saved['draftId']}", "--undo", "0")
    assert outcome["state"] == "sent", outcome
    [uid] = wait_for(lambda: uids_with_subject(bob, "INBOX", subject))
    [attachment] = list(fetch(bob, uid).iter_attachments())
    assert attachment.get_filename() == "link.txt"
    assert attachment.get_content() in ("as attached", b"as attached")


def test_an_inline_image_from_the_cli_goes_where_the_text_names_it(servers, home, tmp_path, bob):
    """CO01-16 (issue 34): `--inline-image` puts the file in the draft with a Content-ID, in place of the text's
    `![](cid:FILE-NAME)`; the draft shows it, and the message sent has it in the HTML's multipart/related."""
    subject = f"Inline from the CLI {stamp()}"
    chart = tmp_path / "chart.png"
    chart.write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(600))
    saved = json_of(home, "compose", "--draft", "--to", user_address(servers, RECIPIENT), "--subject", subject,
                    "--body", "The chart: ![](cid:chart.png) as promised.", "--inline-image", str(chart))
    shown = json_of(home, "drafts", "show", f"d{saved['draftId']}")
    [image] = shown["attachments"]
    assert image["filename"] == "chart.png" and image["mimeType"] == "image/png" and image["contentId"].endswith("@tern.invalid")
    assert f"The chart: ![](cid:{image['contentId']}) as promised." in shown["body"]
    notes = tmp_path / "notes.txt"
    notes.write_text("not an image")
    refused = tern(home, "compose", "--draft", "--to", user_address(servers, RECIPIENT), "--subject", subject, "--inline-image", str(notes))
    assert refused.returncode != 0 and "not a PNG, JPEG, GIF or WebP" in refused.stderr

    outcome = json_of(home, "drafts", "send", f"d{saved['draftId']}", "--undo", "0")
    assert outcome["state"] == "sent", outcome
    [uid] = wait_for(lambda: uids_with_subject(bob, "INBOX", subject))
    message = fetch(bob, uid)
    [related] = [part for part in message.walk() if part.get_content_type() == "multipart/related"]
    html, part = related.get_payload()
    assert part["Content-ID"] == f"<{image['contentId']}>" and part.get_content_disposition() == "inline"
    assert part.get_content() == chart.read_bytes()
    assert f'<img src="cid:{image["contentId"]}" alt="chart.png">' in html.get_content()
    assert "The chart: [image: chart.png] as promised." in message.get_body(preferencelist=("plain",)).get_content()


def test_a_reply_sent_from_the_cli_threads_for_tern_and_for_the_recipient(servers, home, tls_context, bob):
    original_id = f"<question-{stamp()}@tern.test>"
    subject = f"Question {stamp()}"
    message = email.message.EmailMessage()
    message["From"] = f"Bob <{user_address(servers, RECIPIENT)}>"
    message["To"] = user_address(servers, SENDER)
    message["Subject"] = subject
    message["Message-ID"] = original_id
    message.set_content("Shall we ship on Friday?")
    imap = imap_for(servers, tls_context, SENDER)
    try:
        imap.append("INBOX", "", None, message.as_bytes())
    finally:
        imap.logout()
    json_of(home, "sync", SENDER)
    [hit] = json_of(home, "search", subject)
    sent = json_of(home, "reply", f"m{hit['emailId']}", "--body", "Friday it is.", "--send", "--undo", "0")
    assert sent["state"] == "sent", sent

    [uid] = wait_for(lambda: uids_with_subject(bob, "INBOX", f"Re: {subject}"))
    copy = email.message_from_bytes(bob.uid("FETCH", uid, "(BODY.PEEK[])")[1][0][1], policy=email.policy.default)
    assert copy["In-Reply-To"] == original_id and original_id in copy["References"]
    text = copy.get_body(("plain",)).get_content()
    assert text.startswith("Friday it is.") and "> Shall we ship on Friday?" in text

    json_of(home, "sync", SENDER)
    thread = json_of(home, "thread", f"t{hit['threadId']}")
    senders = [m["from"]["address"] for m in thread["messages"]]
    assert senders == [user_address(servers, RECIPIENT), user_address(servers, SENDER)], thread["messages"]
