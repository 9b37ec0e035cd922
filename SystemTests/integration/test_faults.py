"""Issue 20: faults of the network, the servers, the disk and the store, each with real processes: Tern reaches
Dovecot through the project's fault proxy (`scripts/faultproxy.py`) that cuts, stalls or refuses connections at chosen
moments, servers are stopped and started, the store sits on a small full disk or is locked by another process. After
each, the next sync converges to the server's state with no message stored twice and nothing queued lost."""
import json
import uuid

import pytest
from faultproxy import FaultProxy

from conftest import user_address
from test_imap_check import tern
from test_layouts import LayoutServer, quote
from test_send_and_actions import json_of

USER = "dave"


def add_account(home, servers, port=None, *extra):
    """Dave's account in `home`, reaching the IMAP server on `port` (the test Dovecot's TLS port by default)."""
    tern(home, "account", "add", USER, "--email", user_address(servers, USER),
         "--imap", f"127.0.0.1:{port or servers['TERN_IMAPS_PORT']}", "--smtp", "127.0.0.1:1",
         "--password-command", f"cat {servers['TERN_TEST_PASSWORD_FILE']}", "--ca-file", servers["TERN_TEST_CA"], *extra,
         check=True)


def fill_folder(servers, dave_server, folder, count, words):
    """Creates `folder` with `count` messages of `words` random hex words each: bodies that do not compress
    (COMPRESS=DEFLATE is on, and relays and disks count real bytes)."""
    client = dave_server.imap()
    try:
        assert client.create(quote(folder))[0] == "OK"
        for index in range(count):
            body = f"Message {index} of {folder}. " + " ".join(uuid.uuid4().hex for _ in range(words))
            message = (f"From: zoe@example.org\r\nTo: {user_address(servers, USER)}\r\nSubject: {folder} {index}\r\n"
                       f"Message-ID: <fill-{index}-{uuid.uuid4().hex}@example.org>\r\n\r\n{body}\r\n")
            client.append(quote(folder), "", None, message.encode())
    finally:
        client.logout()


@pytest.fixture()
def dave_server(servers):
    return LayoutServer("gmail", int(servers["TERN_IMAPS_PORT"]), servers["TERN_TEST_CA"], servers["TERN_TEST_PASSWORD"])


def test_a_connection_cut_mid_fetch_costs_one_folder_and_the_next_sync_converges(servers, dave_server, tmp_path):
    stamp = uuid.uuid4().hex[:8]
    folders = [f"Cut A {stamp}", f"Cut B {stamp}", f"Cut C {stamp}"]
    for folder in folders:
        fill_folder(servers, dave_server, folder, 80, 60)
    # Tern reaches the server through the relay; the first connection is cut 60 KB in, mid-FETCH.
    home = tmp_path
    relay = FaultProxy(int(servers["TERN_IMAPS_PORT"]), cut_first_after=60_000)
    add_account(home, servers, relay.port, "--sync-window-days", "36500", "--bodies", "all")
    try:
        cut = tern(home, "sync", USER, "--json")
        assert relay.cuts == 1, "the relay cut the connection"
        assert cut.returncode == 1, cut.stderr[-2000:]
        assert "could not be synced" in cut.stderr and "connection was lost" in cut.stderr, cut.stderr[-2000:]
        [report] = json.loads(cut.stdout)
        failed = [f for f in report["folders"] if f.get("error")]
        assert len(failed) == 1 and "connection was lost" in failed[0]["error"], failed
        assert relay.connections >= 2, "the folders after the cut were synced on a new connection"
        # The sync went on past the cut: the folders after it are complete.
        counts = {f["path"]: f["messageCount"] for f in json_of(home, "folders")}
        server = dave_server.message_counts()
        assert len([path for path, count in server.items() if counts.get(path) == count]) >= len(server) - 1, (counts, server)

        again = tern(home, "sync", USER)
        assert again.returncode == 0, again.stderr[-2000:]
        counts = {f["path"]: f["messageCount"] for f in json_of(home, "folders")
                  if f["folderType"] not in ("all", "important", "container")}
        assert counts == dave_server.message_counts()
    finally:
        relay.close()
        client = dave_server.imap()
        for folder in folders:
            client.delete(quote(folder))
        client.logout()


def test_the_watch_outlives_a_dovecot_restart_and_sees_mail_after_it(servers, dave_server, tmp_path):
    """FR-SYNC-04 Error → Idle, FR-SYNC-09: with Dovecot stopped the watch reports the error and when it tries again
    (`retryScheduled`), keeps running, and once Dovecot is back it watches again and shows new mail."""
    import os
    import select
    import subprocess
    import time

    from conftest import MAILSERVERS
    from test_imap_check import TERN
    home = tmp_path
    add_account(home, servers)
    env = dict(os.environ, TERN_HOME=str(home), TERN_RECONNECT_BACKOFF="0.2,0.4,0.8")
    watcher = subprocess.Popen([str(TERN), "sync", USER, "--watch", "--json", "--bodies", "none"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = []

    def wait_for(predicate, seconds):
        buffered = b""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            ready, _, _ = select.select([watcher.stdout], [], [], 1)
            if not ready:
                assert watcher.poll() is None, f"the watch ended: {lines}"
                continue
            chunk = watcher.stdout.read1(65536)
            assert chunk, f"the watch ended: {lines}"
            buffered += chunk
            while b"\n" in buffered:
                line, buffered = buffered.split(b"\n", 1)
                event = json.loads(line)
                lines.append(event)
                if predicate(event):
                    return event
        raise AssertionError(f"not seen in {seconds} s: {lines[-10:]}")

    def status():
        """`tern status --json`, read by another process from the store (issue 20)."""
        [account] = json_of(home, "status")["accounts"]
        return account

    stamp = uuid.uuid4().hex[:8]
    try:
        wait_for(lambda e: e.get("event") == "watching", 120)
        watching = status()
        assert watching["syncState"] == "listening" and watching["syncRunning"] and watching["lastSuccessfulSync"], watching
        assert watching.get("nextRetry") is None and watching["waiting"]["changes"] == 0, watching
        subprocess.run([str(MAILSERVERS), "stop-dovecot"], check=True)
        retry = wait_for(lambda e: e.get("event") == "retryScheduled", 60)
        assert retry["account"] == USER and retry["at"] and retry["error"]
        failing = status()
        assert failing["syncState"] in ("error", "idle", "connecting"), failing
        assert failing["lastError"] and failing["lastSuccessfulSync"] == watching["lastSuccessfulSync"], failing
        if failing["syncState"] != "connecting":
            assert failing["nextRetry"] == retry["at"], (failing, retry)
        # A change made while the server is away waits, and says so.
        thread = json_of(home, "threads", "--account", USER)[0]
        marked = tern(home, "mark", "unread" if thread["unreadCount"] == 0 else "read", str(thread["id"]))
        assert marked.returncode == 0, marked.stderr
        assert status()["waiting"]["changes"] >= 1
        subprocess.run([str(MAILSERVERS), "start"], check=True, capture_output=True)
        wait_for(lambda e: e.get("event") == "watching", 60)
        dave_server.append("INBOX", f"After the restart {stamp}", f"<restart-{stamp}@example.org>")
        new = wait_for(lambda e: e.get("event") == "newMail", 60)
        assert [m["subject"] for m in new["data"]] == [f"After the restart {stamp}"]
        assert watcher.poll() is None
        back = status()
        assert back["syncState"] == "listening" and back.get("nextRetry") is None, back
        assert back["lastSuccessfulSync"] > watching["lastSuccessfulSync"], (back, watching)
        # A watch killed mid-state leaves that state, shown as no longer running.
        watcher.kill()
        watcher.wait()
        stopped = status()
        assert stopped["syncState"] == "listening" and not stopped["syncRunning"], stopped
    finally:
        subprocess.run([str(MAILSERVERS), "start"], check=True, capture_output=True)
        watcher.kill()
        watcher.wait()


def test_a_store_another_process_holds_is_reported_busy_and_left_whole(servers, tmp_path):
    """A second process holding the store's write lock: Tern waits its 10 s, then says the store is busy, changing
    nothing; once the lock goes, the same command works."""
    import sqlite3

    home = tmp_path
    add_account(home, servers)
    holder = sqlite3.connect(home / "tern.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        busy = tern(home, "sync", USER, "--bodies", "none")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert busy.returncode == 1
    assert busy.stderr.strip() == (f"tern: store busy: another process has been writing '{home / 'tern.sqlite'}' for more than "
                                   "10 s; nothing was changed"), busy.stderr
    assert tern(home, "sync", USER, "--bodies", "none").returncode == 0
    check = sqlite3.connect(home / "tern.sqlite")
    assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)


@pytest.mark.skipif(__import__("os").geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_a_full_disk_stops_the_sync_with_the_disk_named_and_it_resumes_when_space_returns(servers, dave_server, tmp_path):
    import sqlite3
    import subprocess

    stamp = uuid.uuid4().hex[:8]
    folder = f"Full {stamp}"
    fill_folder(servers, dave_server, folder, 120, 600)
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(disk)], check=True)
    try:
        home = disk / "home"
        add_account(home, servers, None, "--sync-window-days", "36500", "--bodies", "all")
        full = tern(home, "sync", USER)
        assert full.returncode == 1, full.stderr[-1500:]
        assert f"the disk holding '{home / 'tern.sqlite'}' is full" in full.stderr, full.stderr[-1500:]
        check = sqlite3.connect(home / "tern.sqlite")
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        check.close()

        subprocess.run(["mount", "-o", "remount,size=256m", str(disk)], check=True)
        again = tern(home, "sync", USER)
        assert again.returncode == 0, again.stderr[-1500:]
        counts = {f["path"]: f["messageCount"] for f in json_of(home, "folders")
                  if f["folderType"] not in ("all", "important", "container")}
        assert counts == dave_server.message_counts()
    finally:
        subprocess.run(["umount", "-l", str(disk)])
        client = dave_server.imap()
        client.delete(quote(folder))
        client.logout()


def test_older_mail_of_a_folder_synced_to_its_start_is_answered_offline(servers, tmp_path):
    """FR-SYNC-01 step 5: once a folder's whole history is stored, asking for older mail does not contact the server:
    it answers with Dovecot stopped."""
    import subprocess

    from conftest import MAILSERVERS
    add_account(tmp_path, servers, None, "--sync-window-days", "36500")
    assert tern(tmp_path, "sync", USER, "--bodies", "none").returncode == 0
    subprocess.run([str(MAILSERVERS), "stop-dovecot"], check=True)
    try:
        older = tern(tmp_path, "threads", "--account", USER, "--folder", "INBOX", "--older")
    finally:
        subprocess.run([str(MAILSERVERS), "start"], check=True, capture_output=True)
    assert older.returncode == 0, older.stderr
    assert "no older mail on the server" in older.stderr, older.stderr


def test_catch_up_paused_by_the_person_keeps_its_place_and_resumes_when_they_say(servers, dave_server, tmp_path):
    """FR-SYNC-01 stage D: `tern settings set catch-up paused` stops the history of a first sync after the newest
    headers, says so, and keeps the folder `paused`; `catch-up on` and the next sync fetch the rest from the backfill
    cursor, nothing twice."""
    folder = f"History {uuid.uuid4().hex[:8]}"
    fill_folder(servers, dave_server, folder, 700, 5)
    home = tmp_path
    add_account(home, servers, None, "--bodies", "none")
    try:
        assert tern(home, "settings", "set", "catch-up", "paused").returncode == 0
        paused = tern(home, "sync", USER)
        assert paused.returncode == 0, paused.stderr[-2000:]
        assert "catch-up paused: catch-up is paused" in paused.stdout, paused.stdout
        counts = {f["path"]: f["messageCount"] for f in json_of(home, "folders")}
        assert 0 < counts[folder] < 700, counts
        assert tern(home, "settings", "set", "catch-up", "on").returncode == 0
        resumed = json.loads(tern(home, "sync", USER, "--json").stdout)
        [report] = [f for r in resumed for f in r["folders"] if f["path"] == folder]
        assert report.get("catchUpPaused") is None and report["inserted"] == 700 - counts[folder], report
        assert {f["path"]: f["messageCount"] for f in json_of(home, "folders")}[folder] == 700
    finally:
        client = dave_server.imap()
        client.delete(quote(folder))
        client.logout()
