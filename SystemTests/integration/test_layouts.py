"""Issue 22: the sync and action paths against more than one server layout and more than one server implementation.
Each layout is its own IMAP server, started here by the project's scripts with a fresh mailbox:

- gmail:     today's Dovecot with Gmail's folders (`[Gmail]/…`, `\\All` never synced);
- cyrus:     Dovecot laid out like Cyrus and Fastmail (`INBOX.` namespace, `.` separator, `\\Archive` an ordinary folder,
             no `\\All`; a folder outside the namespace is refused);
- cyrus-bare: a new Cyrus account, its Inbox alone in the `INBOX.` namespace: Tern creates `INBOX.Trash` and
             `INBOX.Archive` (the server refuses folders at the top level);
- localized: a French Gmail account (`[Gmail]/Messages envoyés`, `[Gmail]/Corbeille`, a folder named `R&D`);
- plain:     Dovecot without SPECIAL-USE or MOVE (roles known only by name; archive and delete by COPY and EXPUNGE);
- pymap:     a second implementation (pymap, Python, in the test venv): STARTTLS only, no CONDSTORE, SPECIAL-USE or
             NAMESPACE, but OBJECTID; it starts with an Inbox alone, so Tern creates its Trash and Archive.

After a first sync, after archive and delete by Tern and by another client, and after folders are renamed and deleted on
the server, every folder Tern syncs holds exactly as many messages as the server's STATUS says."""
import os
import pathlib
import shutil
import subprocess
import sys
import uuid

import pytest

from support.imap import LAYOUT_ACCOUNT as ACCOUNT, LAYOUT_USER as USER, LAYOUTS, LayoutServer, modified_utf7, quote
from support.servers import free_port, mailserver_env, wait_port
from support.tern import MAILSERVERS, json_of, tern


@pytest.fixture(scope="session", params=list(LAYOUTS))
def layout(request):
    """A fresh server of each layout for this session, stopped at its end."""
    base = mailserver_env()
    name = request.param
    if name == "pymap":
        pymap = shutil.which("pymap", path=str(pathlib.Path(sys.executable).parent))
        assert pymap, "pymap is in requirements-test.txt (make test installs it into .build/venv)"
        port = free_port()
        tls = pathlib.Path(base["TERN_MAILSERVERS_DIR"]) / "tls"
        if not (tls / "server.crt").exists():
            subprocess.run([str(MAILSERVERS), "start"], check=True)
        process = subprocess.Popen([pymap, "--host", "127.0.0.1", "--port", str(port), "--cert", str(tls / "server.crt"),
                                    "--key", str(tls / "server.key"), "--no-service", "admin",
                                    "dict", "--demo-user", f"{USER}@tern.test", "--demo-password", base["TERN_TEST_PASSWORD"]],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_port(port, process)
            yield LayoutServer(name, port, str(tls / "ca.crt"), base["TERN_TEST_PASSWORD"], starttls=True)
        finally:
            process.terminate()
            process.wait(10)
        return
    ports = [free_port() for _ in range(6)]
    env = dict(os.environ, TERN_MAILSERVERS_DIR=f"{base['TERN_MAILSERVERS_DIR']}-{name}", TERN_MAILSERVERS_LAYOUT=name,
               TERN_MAILSERVERS_SERVICES="imap", TERN_IMAP_PORT=str(ports[0]), TERN_IMAPS_PORT=str(ports[1]),
               TERN_SMTP_PORT=str(ports[2]), TERN_SUBMISSION_PORT=str(ports[3]), TERN_SMTPS_PORT=str(ports[4]),
               TERN_OAUTH_PORT=str(ports[5]))
    subprocess.run([str(MAILSERVERS), "reset"], env=env, check=True, capture_output=True)
    subprocess.run([str(MAILSERVERS), "start"], env=env, check=True, capture_output=True)
    try:
        yield LayoutServer(name, ports[1], f"{env['TERN_MAILSERVERS_DIR']}/tls/ca.crt", base["TERN_TEST_PASSWORD"])
    finally:
        subprocess.run([str(MAILSERVERS), "reset"], env=env, capture_output=True)


@pytest.fixture()
def account(layout, tmp_path):
    layout.add_account(tmp_path)
    return tmp_path


def synced_counts(home):
    result = tern(home, "sync", ACCOUNT, "--bodies", "none")
    assert result.returncode == 0, result.stderr
    return {f["path"]: f["messageCount"] for f in json_of(home, "folders")
            if f["account"] == ACCOUNT and f["folderType"] not in ("all", "important", "container")}


def assert_matches_server(layout, home):
    server, local = layout.message_counts(), synced_counts(home)
    assert local == server, f"{layout.name}: Tern {local} ≠ server {server}"


def find(home, subject):
    hits = [h for h in json_of(home, "search", subject) if h["subject"] == subject]
    assert len(hits) == 1, f"{subject}: {hits}"
    return hits[0]


def test_a_first_sync_holds_what_the_server_holds(layout, account):
    stamp = uuid.uuid4().hex[:8]
    own = layout.folder_name(f"Projets & Co {stamp}")
    client = layout.imap()
    assert client.create(quote(modified_utf7(own)))[0] == "OK"
    client.logout()
    for index in range(3):
        layout.append("INBOX", f"Inbox {stamp} {index}", f"<inbox-{index}-{stamp}@example.org>")
    layout.append(own, f"Own {stamp}", f"<own-{stamp}@example.org>")
    if layout.name in ("cyrus", "plain"):
        # An ordinary Archive folder another client archived into: synced, and shown in the virtual Archive.
        layout.append(layout.layout["archive"], f"Archived {stamp}", f"<archived-{stamp}@example.org>")
    assert_matches_server(layout, account)
    if layout.name in ("cyrus", "plain"):
        archived = json_of(account, "threads", "--archive", "--limit", "200")
        assert [t for t in archived if t["subject"] == f"Archived {stamp}"]
    roles = {f["path"]: f["folderType"] for f in json_of(account, "folders") if f["account"] == ACCOUNT}
    expected = {"cyrus": {"INBOX.Archive": "archive", "INBOX.Trash": "trash", "INBOX.Sent": "sent"},
                "plain": {"Archive": "archive", "Trash": "trash", "Sent": "sent", "Drafts": "drafts", "Junk": "spam"},
                "localized": {"[Gmail]/Corbeille": "trash", "[Gmail]/Messages envoyés": "sent", "R&D": "custom"}}
    for path, role in expected.get(layout.name, {}).items():
        assert roles.get(path) == role, f"{path}: {roles.get(path)}"


def test_archive_and_delete_by_tern_and_by_another_client(layout, account):
    stamp = uuid.uuid4().hex[:8]
    for name in ("tern-archive", "tern-delete", "other-archive", "other-delete"):
        layout.append("INBOX", f"{name} {stamp}", f"<{name}-{stamp}@example.org>")
    assert_matches_server(layout, account)

    archived = tern(account, "archive", f"m{find(account, f'tern-archive {stamp}')['emailId']}", "--no-undo")
    assert archived.returncode == 0, archived.stdout + archived.stderr
    deleted = tern(account, "delete", f"m{find(account, f'tern-delete {stamp}')['emailId']}", "--no-undo")
    assert deleted.returncode == 0, deleted.stdout + deleted.stderr
    # Where a server lacked the folder (cyrus-bare, pymap), Tern created it at the top of the user's namespace.
    assert layout.holds(layout.layout["archive"], f"<tern-archive-{stamp}@example.org>")
    assert layout.holds(layout.layout["trash"], f"<tern-delete-{stamp}@example.org>")

    client = layout.imap()
    try:
        client.select("INBOX")
        for name, target in (("other-archive", layout.layout["archive"]), ("other-delete", layout.layout["trash"])):
            _, data = client.uid("SEARCH", None, "HEADER", "Message-ID", f"<{name}-{stamp}@example.org>")
            uid = data[0].split()[0].decode()
            assert client.uid("COPY", uid, quote(modified_utf7(target)))[0] == "OK"
            client.uid("STORE", uid, "+FLAGS.SILENT", "(\\Deleted)")
        client.expunge()
    finally:
        client.logout()
    assert_matches_server(layout, account)


def test_folders_renamed_and_deleted_on_the_server(layout, account):
    stamp = uuid.uuid4().hex[:8]
    clients, customers, old = (layout.folder_name(f"{leaf} {stamp}") for leaf in ("Clients", "Customers", "Old"))
    client = layout.imap()
    try:
        for folder in (clients, old):
            assert client.create(quote(modified_utf7(folder)))[0] == "OK"
    finally:
        client.logout()
    layout.append(clients, f"Client one {stamp}", f"<client-1-{stamp}@example.org>")
    layout.append(clients, f"Client two {stamp}", f"<client-2-{stamp}@example.org>")
    layout.append(old, f"Old {stamp}", f"<old-{stamp}@example.org>")
    assert_matches_server(layout, account)

    client = layout.imap()
    try:
        assert client.rename(quote(modified_utf7(clients)), quote(modified_utf7(customers)))[0] == "OK"
        assert client.delete(quote(modified_utf7(old)))[0] == "OK"
    finally:
        client.logout()
    # No folder left behind (counts doubled, "missing" on every sync), none missing.
    assert_matches_server(layout, account)
    assert not [h for h in json_of(account, "search", f"Old {stamp}") if h["subject"] == f"Old {stamp}"]

    # Archive from the renamed folder reaches the server.
    moved = find(account, f"Client one {stamp}")
    result = tern(account, "archive", f"m{moved['emailId']}", "--folder", customers, "--no-undo")
    assert result.returncode == 0, result.stdout + result.stderr
    assert layout.holds(layout.layout["archive"], f"<client-1-{stamp}@example.org>")
    assert_matches_server(layout, account)


def test_a_renamed_folder_keeps_what_was_synced_when_the_server_says_it_is_the_same(layout, account):
    """RFC 8474 (pymap offers OBJECTID): the renamed folder is not fetched again. Elsewhere it is fetched again under
    its new name (a rename is indistinguishable from a deletion and a creation without an id)."""
    if layout.name != "pymap":
        pytest.skip("the server offers no OBJECTID")
    stamp = uuid.uuid4().hex[:8]
    client = layout.imap()
    try:
        assert client.create(f'"Team {stamp}"')[0] == "OK"
    finally:
        client.logout()
    layout.append(f"Team {stamp}", f"Team {stamp}", f"<team-{stamp}@example.org>")
    assert_matches_server(layout, account)
    client = layout.imap()
    try:
        assert client.rename(f'"Team {stamp}"', f'"Squad {stamp}"')[0] == "OK"
    finally:
        client.logout()
    result = tern(account, "sync", ACCOUNT, "--bodies", "none", "--json")
    assert result.returncode == 0, result.stderr
    import json
    report = json.loads(result.stdout)
    accounts = report if isinstance(report, list) else [report]
    [folder] = [f for a in accounts for f in a["folders"] if f["path"] == f"Squad {stamp}"]
    assert folder["inserted"] == 0 and folder["linked"] == 0, folder
    assert_matches_server(layout, account)
