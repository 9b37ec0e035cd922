"""Sending from the web composer with the undo delay (issue 18, FR-COMP-02, PLATFORM.md): Undo inside the window
sends nothing; the end of the window sends exactly once with a Sent copy; and `tern serve` SIGKILLed inside the
window sends nothing, then or later: the message is a draft again, here and in the server's Drafts, for the user to
send again. Real Postfix delivering to the real Dovecot; the recipient's mailbox is read over IMAP."""
import email
import email.policy
import json
import os
import signal
import ssl
import subprocess
import time
import urllib.parse
import uuid

import pytest

from support.browser import by_xpath, chromium
from support.imap import imap_for, uids_with_subject
from support.servers import free_port
from support.tern import TERN, json_of
from support.waiting import wait_until
from support.web import browser_sign_in, csrf_of, sign_in, start_serve

SENDER, RECIPIENT = "alice", "dave"
USER = SENDER  # the `home` fixture's account


@pytest.fixture(autouse=True)
def five_second_undo_window(home):
    subprocess.run([str(TERN), "settings", "set", "undo-send-delay", "5"], env=dict(os.environ, TERN_HOME=str(home)), check=True)


def post(web, path, fields, csrf):
    response, body = web.request("POST", path, {"X-CSRF-Token": csrf, "Content-Type": "application/x-www-form-urlencoded"},
                                 urllib.parse.urlencode(fields))
    return response.status, json.loads(body or "{}")


def session(port):
    """A signed-in session (the app's secret path with it) and the page's CSRF token."""
    web = sign_in(port)
    return web, csrf_of(web.request("GET", "/mail")[1])


def compose(port, subject):
    web, csrf = session(port)
    status, reply = post(web, "/compose/send", {"mode": "new", "account": SENDER, "to": f"{RECIPIENT}@tern.test", "subject": subject,
                                                 "body": "Written in the browser.", "confirmed": "1"}, csrf)
    assert status == 200 and reply["ok"] and reply["undoSeconds"] == 5, reply
    return reply["emailId"], web, csrf


def delivered(servers, subject):
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), RECIPIENT)
    try:
        return len(uids_with_subject(imap, "INBOX", subject))
    finally:
        imap.logout()


def test_undo_inside_the_window_sends_nothing(servers, home):
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    try:
        subject = f"Undone {uuid.uuid4().hex[:10]}"
        email, web, csrf = compose(port, subject)
        status, reply = post(web, "/compose/undo", {"email": email}, csrf)
        assert status == 200 and reply["ok"], reply
        time.sleep(7)
        json_of(home, "sync", SENDER)
        assert delivered(servers, subject) == 0
        assert all(entry["emailId"] != email for entry in json_of(home, "outbox"))
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_end_of_the_window_sends_once_with_a_sent_copy(servers, home):
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    try:
        subject = f"Sent after the window {uuid.uuid4().hex[:10]}"
        email, web, csrf = compose(port, subject)
        time.sleep(2)
        assert delivered(servers, subject) == 0, "nothing during the window"
        # The page confirms at the end of its countdown, still open (a closed tab never does).
        time.sleep(3.2)
        status, reply = post(web, "/compose/commit", {"email": email}, csrf)
        assert status == 200 and reply["ok"], reply
        deadline = time.monotonic() + 30
        while delivered(servers, subject) == 0 and time.monotonic() < deadline:
            time.sleep(0.5)
        json_of(home, "sync", SENDER)
        assert delivered(servers, subject) == 1
        imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), SENDER)
        try:
            assert len(uids_with_subject(imap, "[Gmail]/Sent Mail", subject)) == 1
        finally:
            imap.logout()
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_page_that_never_confirms_leaves_a_draft_and_sends_nothing(servers, home):
    """The tab closed (or crashed, or went offline) in the window: no confirmation comes, and the message goes back to
    its draft shortly after the window's end."""
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    try:
        subject = f"Tab closed {uuid.uuid4().hex[:10]}"
        email, web, csrf = compose(port, subject)
        time.sleep(5 + 10 + 2)  # the window, the grace for the page's confirmation, a margin
        status, reply = post(web, "/compose/commit", {"email": email}, csrf)
        assert status == 409 and not reply["ok"], "too late: it is a draft again"
        json_of(home, "sync", SENDER)
        assert delivered(servers, subject) == 0
        assert [d["subject"] for d in json_of(home, "drafts", "list") if d["subject"] == subject] == [subject]
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_sigkill_inside_the_window_sends_nothing_ever(servers, home):
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    subject = f"Killed in the window {uuid.uuid4().hex[:10]}"
    email, _, _ = compose(port, subject)
    server.send_signal(signal.SIGKILL)
    server.wait(timeout=10)
    time.sleep(7)
    json_of(home, "sync", SENDER)  # pushes the queue: the orphaned hold must not go
    time.sleep(2)
    assert delivered(servers, subject) == 0
    # It is a draft again (FR-COMP-02, PLATFORM.md), here and in the server's Drafts; the Outbox has nothing.
    assert [entry for entry in json_of(home, "outbox") if entry["emailId"] == email] == []
    [draft] = [d for d in json_of(home, "drafts", "list") if d["subject"] == subject]
    assert draft["origin"] == "local" and draft["sync"] == "synced", draft
    # A new tern serve with sync does not send it either.
    port = free_port()
    server = start_serve(home, port)
    try:
        time.sleep(8)
        assert delivered(servers, subject) == 0
    finally:
        server.terminate()
        server.wait(timeout=10)


def upload(web, name, data, csrf):
    """The page's upload (app.js): the bytes as the body, the name percent-encoded in X-File-Name."""
    response, body = web.request("POST", "/compose/attachments", {
        "X-CSRF-Token": csrf, "Content-Type": "text/plain", "X-File-Name": urllib.parse.quote(name, safe="")}, data)
    return response.status, json.loads(body or "{}")


def test_an_uploaded_name_with_a_line_break_and_a_path_is_cleaned_and_its_draft_sends(servers, home):
    """Issue 32: such a name kept as typed made its draft unsendable (422) and the attachment dropped at the next save;
    cleaned on upload as a received attachment's name is, the draft keeps it and sends."""
    subprocess.run([str(TERN), "settings", "set", "undo-send-delay", "0"], env=dict(os.environ, TERN_HOME=str(home)), check=True)
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    try:
        subject = f"Uploaded name {uuid.uuid4().hex[:10]}"
        web, csrf = session(port)
        status, uploaded = upload(web, "../evil\r\nX: y.txt", b"attached bytes", csrf)
        assert status == 200 and uploaded["name"] == "evilX: y.txt", uploaded
        fields = {"mode": "new", "account": SENDER, "to": f"{RECIPIENT}@tern.test", "subject": subject, "body": "With a file."}
        status, saved = post(web, "/compose/draft", {**fields, "upload": uploaded["id"]}, csrf)
        assert status == 200 and saved["uploadsKept"] == {uploaded["id"]: "evilX: y.txt"}, saved
        # The page now names the kept file by the name the save answered, as app.js does.
        status, reply = post(web, "/compose/send", {**fields, "draft": saved["draftId"], "draftfile": "evilX: y.txt", "confirmed": "1"},
                             csrf)
        assert status == 200 and reply["ok"], reply
        deadline = time.monotonic() + 30
        while delivered(servers, subject) == 0 and time.monotonic() < deadline:
            time.sleep(0.5)
        imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), RECIPIENT)
        try:
            [uid] = uids_with_subject(imap, "INBOX", subject)
            message = email.message_from_bytes(imap.uid("FETCH", uid, "(BODY.PEEK[])")[1][0][1], policy=email.policy.default)
        finally:
            imap.logout()
        [attachment] = list(message.iter_attachments())
        assert attachment.get_filename() == "evilX: y.txt"
        assert attachment.get_payload(decode=True) == b"attached bytes"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_paused_window_sends_nothing_however_long_and_resumes_from_what_was_left(servers, home):
    """FR-COMP-02 "App enters background during undo window: Timer pauses. Resumes when app returns to foreground": the
    page says it was hidden (and again each minute); seen again, it resumes and confirms at the new end."""
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    try:
        subject = f"Paused window {uuid.uuid4().hex[:10]}"
        email, web, csrf = compose(port, subject)
        time.sleep(1)
        status, paused = post(web, "/compose/pause", {"email": email}, csrf)
        assert status == 200 and paused["ok"] and 2500 < paused["milliseconds"] <= 4100, paused
        time.sleep(5 + 10 + 2)  # past the window and the page's grace: a paused window waits
        status, again = post(web, "/compose/pause", {"email": email}, csrf)
        assert status == 200 and again["milliseconds"] == paused["milliseconds"], "a refreshed pause keeps what was left"
        assert delivered(servers, subject) == 0
        status, resumed = post(web, "/compose/resume", {"email": email}, csrf)
        assert status == 200 and resumed["ok"] and 2000 < resumed["milliseconds"] <= paused["milliseconds"], resumed
        time.sleep(resumed["milliseconds"] / 1000 + 0.2)
        status, reply = post(web, "/compose/commit", {"email": email}, csrf)
        assert status == 200 and reply["ok"], reply
        assert wait_until(lambda: delivered(servers, subject) == 1, timeout=30)
        assert delivered(servers, subject) == 1
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_hidden_tab_pauses_its_countdown_in_chromium(servers, home):
    """The same in Chromium: the composer's tab goes to the background during its 5 s window (another tab in front) for
    longer than the window; nothing is sent until it is in front again, then the countdown ends and it is sent once."""
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    browser = chromium()
    try:
        base = browser_sign_in(browser, port)
        subject = f"Hidden tab {uuid.uuid4().hex[:10]}"
        browser.get(f"{base}/mail?account={SENDER}&folder=INBOX&compose=new")
        by_xpath(browser, "//input[@id='compose-to']").send_keys(f"{RECIPIENT}@tern.test,")
        browser.find_element("id", "compose-subject").send_keys(subject)
        browser.find_element("id", "compose-body").send_keys("Sent from a tab that was hidden.")
        button = by_xpath(browser, "//form[@aria-labelledby='composer-title']//button[normalize-space()='Send']")
        assert wait_until(lambda: button.get_attribute("disabled") is None)
        button.click()
        by_xpath(browser, "//div[@id='toasts']//*[contains(., 'Sending in')]")
        app_tab = browser.current_window_handle
        browser.switch_to.new_window("tab")
        time.sleep(9)
        assert delivered(servers, subject) == 0, "nothing leaves while the page is hidden"
        browser.close()
        browser.switch_to.window(app_tab)
        by_xpath(browser, "//div[@id='toasts']//*[contains(., 'Message sent')]", timeout=30)
        assert delivered(servers, subject) == 1
    finally:
        browser.quit()
        server.terminate()
        server.wait(timeout=10)
