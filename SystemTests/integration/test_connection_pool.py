"""Issue 20, FR-SYNC-09: a `tern serve` process reaches an account's IMAP server only through the account's one pool of
at most five connections. Its sync, IDLE, bodies fetched on opening a thread, an attachment download, a Drafts APPEND
and an archive pushed to the server all go through a counting relay: never more than five connections open, and no
more than five made in all (a connection logged in for one job serves the next)."""
import json
import os
import re
import subprocess
import uuid

from faultproxy import FaultProxy
from support.accounts import NO_SMTP, add_account
from support.messages import raw_message
from support.servers import free_port, user_address
from support.tern import TERN
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
