"""Issue 20, FR-SYNC-09: a `tern serve` process reaches an account's IMAP server only through the account's one pool of
at most five connections. Its sync, IDLE, bodies fetched on opening a thread, an attachment download, a Drafts APPEND
and an archive pushed to the server all go through a counting relay: never more than five connections open, and no
more than five made in all (a connection logged in for one job serves the next).

Issue 34: the five are the account's across processes. `tern serve` under load and three one-shot commands run at once on
the same home never hold more than five connections together, counted by the server (`doveadm who`) and by the kernel
(the tern processes' established TCP connections to the IMAP port), and every command succeeds."""
import json
import os
import re
import subprocess
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from faultproxy import FaultProxy
from support.accounts import NO_SMTP, add_account
from support.messages import raw_message
from support.servers import free_port, user_address
from support.tern import TERN, json_of, tern
from support.waiting import wait_for
from support.web import request, sign_in, start_serve

USER = "dave"


def stored_thread(home, subject):
    """From the store alone (this process pushes nothing: it would make connections of its own)."""
    listed = subprocess.run([str(TERN), "threads", "--account", USER, "--json"], capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, TERN_HOME=str(home), TERN_NO_BACKGROUND_PUSH="1"))
    if listed.returncode != 0:
        return None
    return next((thread for thread in json.loads(listed.stdout) if subject in thread.get("subject", "")), None)


def test_serve_keeps_to_one_pool_of_five_for_sync_idle_bodies_attachments_drafts_and_changes(servers, dave_server, tmp_path):
    stamp = uuid.uuid4().hex[:10]
    subject = f"Pooled {stamp}"
    client = dave_server.imap()
    client.append("INBOX", "", None, raw_message(user_address(servers, USER), subject, message_id=f"<pooled-{stamp}@example.org>",
                                                 text=f"The body of {stamp}.", attachments=[(f"notes-{stamp}.bin", b"x" * 40_000)]))
    client.logout()
    relay = FaultProxy(int(servers["TERN_IMAPS_PORT"]))
    home = tmp_path
    add_account(home, servers, USER, "--bodies", "none", imap_port=relay.port, smtp=NO_SMTP)
    port = free_port()
    serve = start_serve(home, port)
    try:
        thread = wait_for(lambda: stored_thread(home, subject), timeout=60)
        assert thread, "the first sync stored the thread"
        web = sign_in(port)
        site, cookie = {"port": port, "app": web.app}, web.cookie
        page = request(site, "GET", "/mail", {"Cookie": cookie})[1]
        csrf = page.split('name="csrf-token" content="')[1].split('"')[0]
        headers = {"Cookie": cookie, "X-CSRF-Token": csrf, "Content-Type": "application/x-www-form-urlencoded"}

        # Opening the thread fetches its body (bodies: none at sync); the page then asks for what arrived.
        request(site, "GET", f"/fragments/conversation?thread={thread['id']}", {"Cookie": cookie})
        conversation = request(site, "GET", f"/fragments/bodies?thread={thread['id']}", {"Cookie": cookie})[1]
        body_path = "/" + re.search(r'bodies/\d+\?thread=\d+', conversation.replace("&amp;", "&")).group(0)
        assert f"The body of {stamp}." in request(site, "GET", body_path, {"Cookie": cookie})[1]
        attachment = re.search(r"attachments/(\d+)/download", conversation).group(1)
        response, body = request(site, "POST", f"/attachments/{attachment}/download", headers, body="confirmed=1")
        assert response.status == 200, body
        assert wait_for(lambda: request(site, "GET", f"/attachments/{attachment}/file", {"Cookie": cookie})[0].status == 200,
                        timeout=60), "the attachment was downloaded"

        # A draft saved goes to the server's Drafts; an archive is pushed once its undo window ends.
        draft_subject = f"Draft {stamp}"
        response, body = request(site, "POST", "/compose/draft", headers,
                                 body=f"mode=new&account={USER}&to=zoe%40example.org&subject={draft_subject.replace(' ', '+')}&body=Hi")
        assert response.status == 200, body
        response, body = request(site, "POST", "/actions/archive", headers, body=f"thread={thread['id']}")
        assert response.status == 200, body

        def on_server():
            client = dave_server.imap()
            try:
                client.select('"[Gmail]/Drafts"', readonly=True)
                drafts = client.search(None, "SUBJECT", f'"{draft_subject}"')[1][0].split()
                client.select("INBOX", readonly=True)
                inbox = client.search(None, "SUBJECT", f'"{subject}"')[1][0].split()
                return drafts and not inbox
            finally:
                client.logout()
        assert wait_for(on_server, timeout=90), "the draft is on the server and the thread archived there"
    finally:
        serve.terminate()
        stderr = serve.communicate(timeout=20)[1]
        relay.close()
    assert relay.peak_open <= 5, f"{relay.peak_open} connections open at once"
    assert relay.connections <= 5, f"{relay.connections} connections made: the pool's were not reused\n{stderr[-2000:]}"


class ConnectionCounter:
    """Samples, until stopped, how many IMAP connections there are: as Dovecot counts `user`'s logged-in sessions
    (`doveadm who`, every 50 ms), and as the kernel counts established TCP connections to the IMAP port on the clients'
    side (every 5 ms; one not yet logged in counts too). The test holds none of its own meanwhile."""

    def __init__(self, servers, user):
        self.config = os.path.join(servers["TERN_MAILSERVERS_DIR"], "dovecot", "dovecot.conf")
        self.address = user_address(servers, user)
        self.port = f"{int(servers['TERN_IMAPS_PORT']):04X}"
        self.peak_server = self.peak_tcp = self.server_samples = self.tcp_samples = self.latest_server = 0
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.sample_server, daemon=True),
                        threading.Thread(target=self.sample_tcp, daemon=True)]

    def server_side(self):
        listed = subprocess.run(["doveadm", "-c", self.config, "who", "-1", self.address], capture_output=True, text=True,
                                timeout=10).stdout
        return sum(1 for line in listed.splitlines() if line.split()[:2] == [self.address, "imap"])

    def tcp(self):
        count = 0
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with open(table) as lines:
                for line in list(lines)[1:]:
                    fields = line.split()
                    if fields[3] == "01" and fields[2].rsplit(":", 1)[1] == self.port:
                        count += 1
        return count

    def sample_server(self):
        while not self.stopping.is_set():
            self.latest_server = self.server_side()
            self.peak_server = max(self.peak_server, self.latest_server)
            self.server_samples += 1
            self.stopping.wait(0.05)

    def sample_tcp(self):
        while not self.stopping.is_set():
            self.peak_tcp = max(self.peak_tcp, self.tcp())
            self.tcp_samples += 1
            self.stopping.wait(0.005)

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=20)


def test_serve_under_load_and_three_commands_at_once_hold_five_connections_at_most(servers, dave_server, tmp_path):
    stamp = uuid.uuid4().hex[:10]
    client = dave_server.imap()
    for index in range(60):
        client.append("INBOX", "", None, raw_message(user_address(servers, USER), f"Shared {stamp} {index}",
                                                     message_id=f"<shared-{stamp}-{index}@example.org>",
                                                     text=f"The body of {stamp} {index}. " + "Words of the body. " * 5000))
    client.logout()
    home = tmp_path / "home"
    home.mkdir()
    add_account(home, servers, USER, "--bodies", "none", smtp=NO_SMTP)
    assert tern(home, "sync", USER, timeout=300).returncode == 0
    threads = sorted((thread for thread in json_of(home, "threads", "--account", USER, "--limit", "500")
                      if f"Shared {stamp}" in thread.get("subject", "")), key=lambda thread: int(thread["subject"].split()[-1]))
    assert len(threads) == 60, [thread.get("subject") for thread in threads]
    served, commanded = threads[:50], threads[50:]
    port = free_port()
    serve = start_serve(home, port)
    environment = dict(os.environ, TERN_HOME=str(home), TERN_NO_BACKGROUND_PUSH="1")

    def run(*args):
        done = subprocess.run([str(TERN), *args], env=environment, capture_output=True, text=True, timeout=240)
        assert done.returncode == 0, f"{args}: {done.stderr[-2000:]}"
        return done.stdout

    # Three commands at a time, each of three kinds several times over: a sync, bodies fetched for a thread, and the
    # Inbox exported from the server.
    def syncs():
        return [json.loads(run("sync", USER, "--json")) for _ in range(3)]

    def bodies():
        return [run("thread", f"t{thread['id']}", "--expand-all", "--keep-unread") for thread in commanded]

    def exports():
        for number in range(2):
            run("export", "--folder", "INBOX", "--mbox", str(tmp_path / f"inbox-{number}.mbox"), "--account", USER)

    try:
        web = sign_in(port)
        site, cookie = {"port": port, "app": web.app}, web.cookie

        def open_conversation(thread):
            response, body = request(site, "GET", f"/fragments/conversation?thread={thread['id']}", {"Cookie": cookie})
            assert response.status == 200, body

        with ConnectionCounter(servers, USER) as counter:
            # serve's pool fills: five conversations opened at once fetch their bodies on five connections, which
            # then stay logged in, idle, as they do for four minutes.
            with ThreadPoolExecutor(5) as opening:
                list(opening.map(open_conversation, served[:5]))
            wait_for(lambda: counter.latest_server >= 3, timeout=30)
            before = counter.peak_server
            started = time.monotonic()
            # serve stays under load (bodies fetched four at a time) while the commands run.
            with ThreadPoolExecutor(4) as loading, ThreadPoolExecutor(3) as commanding:
                load = [loading.submit(open_conversation, thread) for thread in served[5:]]
                synced, shown, _ = [future.result(timeout=600) for future in
                                    [commanding.submit(syncs), commanding.submit(bodies), commanding.submit(exports)]]
                for future in load:
                    future.result(timeout=240)
            took = time.monotonic() - started
    finally:
        serve.terminate()
        serve_stderr = serve.communicate(timeout=20)[1]
    assert all(report for report in synced)
    for thread, text in zip(commanded, shown):
        assert f"The body of {stamp} {thread['subject'].split()[-1]}." in text, text[:2000]
    for number in range(2):
        exported = (tmp_path / f"inbox-{number}.mbox").read_text(errors="replace")
        assert all(f"Subject: Shared {stamp} {index}" in exported for index in range(60))
    print(f"peaks: {counter.peak_server} logged in, {counter.peak_tcp} TCP; {before} before the commands; "
          f"{counter.server_samples} + {counter.tcp_samples} samples; the commands took {took:.1f} s")
    assert counter.server_samples >= 10 and counter.tcp_samples >= 100, "sampled throughout"
    assert before >= 3, f"serve held {before} connections before the commands: no load"
    assert counter.peak_server <= 5, f"{counter.peak_server} connections logged in at once\n{serve_stderr[-2000:]}"
    assert counter.peak_tcp <= 5, f"{counter.peak_tcp} TCP connections at once"
