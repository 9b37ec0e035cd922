"""The Email Detail acceptance criteria in the web app (issue 17: AC-U-08, AC-U-09, AC-U-10, AC-U-10b of
004_1c5eff32dbb0c638.txt), each clause checked in Chromium by role and accessible name against the real Dovecot,
and the whole hostile-vector corpus (SystemTests/vectors/xss-vectors.json) loaded through the real app."""
import json
import os
import stat
import subprocess
import time
import uuid

import pytest

from support.accounts import ACCEPTANCE_USER
from support.browser import VECTORS, Recorder, axe_violations, by_xpath, open_thread_by_name, serve_recorder
from support.imap import flags_of
from support.messages import acceptance_message as message, plant_thread
from support.tern import TERN, sync
from support.waiting import wait_until
from support.web import get

USER = ACCEPTANCE_USER


# ---- AC-U-08: Email Detail View -----------------------------------------------------------------------------------

def test_ac_u_08_a_five_message_thread_three_read_two_unread(browser, app):
    stamp, root = plant_thread(app["servers"], app["imap"], 5, unread=(3, 4))
    sync(app["home"], USER)
    open_thread_by_name(browser, app, f"Thread {stamp}")
    articles = browser.find_elements("xpath", "//main//article")
    assert len(articles) == 5
    times = [a.find_element("xpath", ".//time").get_attribute("datetime") for a in articles]
    assert times == sorted(times), "chronological order"
    expanded = [a.find_element("xpath", ".//h3//a").get_attribute("aria-expanded") for a in articles]
    assert expanded == ["false", "false", "false", "true", "true"], "read collapsed, the unread (latest among them) expanded"
    for article in articles:  # announced as a unit: sender, time, state
        label = article.get_attribute("aria-label")
        assert "zoe@example.org" in label and "2026" in label and label.endswith(", read"), label
    toolbar = by_xpath(browser, "//div[@role='toolbar' and @aria-label='Conversation actions']")
    for name in ("Reply", "Reply all", "Forward", "Archive", "Delete", "Star", "Mark unread"):
        assert toolbar.find_element("xpath", f".//*[normalize-space()='{name}']").is_displayed(), name
    # Marked read (MarkReadUseCase) in the store at once, on the server after the push.
    sync(app["home"], USER)
    assert wait_until(lambda: "\\Seen" in flags_of(app["imap"], "INBOX", f"<reply-4-{stamp}@example.org>"), 10)
    # A collapsed message expands on click.
    articles[0].find_element("xpath", ".//h3//a").click()
    assert wait_until(lambda: browser.find_element("xpath", "//main//article[1]//h3//a").get_attribute("aria-expanded") == "true")


def test_ac_u_08_star_is_optimistic_and_mark_unread_goes_back(browser, app):
    stamp, _ = plant_thread(app["servers"], app["imap"], 2)
    sync(app["home"], USER)
    open_thread_by_name(browser, app, f"Thread {stamp}")
    star = by_xpath(browser, "//main//article[2]//button[starts-with(@aria-label, 'Star message from')]")
    assert star.get_attribute("aria-pressed") == "false"
    star.click()
    assert wait_until(lambda: browser.find_element("xpath", "//main//article[2]//button[starts-with(@aria-label, 'Star message')]")
                      .get_attribute("aria-pressed") == "true", 2)
    by_xpath(browser, "//div[@role='toolbar']//button[normalize-space()='Mark unread']").click()
    assert wait_until(lambda: "thread=" not in browser.current_url)
    # Read once the list has been fetched again: the row shown before the swap still says read.
    row = f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Thread {stamp}')]"
    assert wait_until(lambda: browser.find_element("xpath", row).get_attribute("aria-label").startswith("Unread.")), \
        browser.find_element("xpath", row).get_attribute("aria-label")


@pytest.mark.parametrize("action,toast", [("Archive", "archived"), ("Delete", "moved to Trash")])
def test_ac_u_08_archive_and_delete_show_a_five_second_undo_toast_and_go_back(browser, app, action, toast):
    stamp, _ = plant_thread(app["servers"], app["imap"], 1)
    sync(app["home"], USER)
    open_thread_by_name(browser, app, f"Thread {stamp}")
    by_xpath(browser, f"//div[@role='toolbar']//button[normalize-space()='{action}']").click()
    by_xpath(browser, "//div[@id='toasts' and @role='status' and @aria-live='polite']//button[normalize-space()='Undo']")
    assert wait_until(lambda: toast in browser.execute_script("return document.getElementById('toasts').textContent"))
    assert wait_until(lambda: "thread=" not in browser.current_url)
    assert not browser.find_elements("xpath", f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Thread {stamp}')]")
    assert wait_until(lambda: not browser.find_elements("xpath", "//div[@id='toasts']//button[normalize-space()='Undo']"), 7)


# ---- AC-U-09: Message Rendering + HTML Safety ---------------------------------------------------------------------

AC09_HTML = """<html><body><h2>Quarterly <b>results</b></h2><p style="color:#064">Numbers <i>inside</i>.</p>
<script>window.top.ran = 1</script><iframe src="https://frames.example/x"></iframe><form action="https://phish.example"><input></form>
<img src="https://pixel-one.example/o.gif" width="1" height="1"><img src="https://pixel-two.example/t.gif" width="1" height="1">
<img src="https://images.example/a.png" alt="chart A"><img src="https://images.example/b.png" alt="chart B"><img src="https://images.example/c.png" alt="chart C">
<a href="https://example.org/report" onclick="window.top.ran = 2">the report</a><div onmouseover="window.top.ran = 3">hover</div>
<blockquote type="cite">On Monday, Zoe wrote:<br>the earlier message</blockquote></body></html>"""


def test_ac_u_09_hostile_html_is_cleaned_remote_images_wait_and_trackers_stay_out(browser, app):
    stamp = uuid.uuid4().hex[:10]
    app["imap"].append("INBOX", "", None, message(f"Results {stamp}", html=AC09_HTML))
    sync(app["home"], USER)
    open_thread_by_name(browser, app, f"Results {stamp}")
    by_xpath(browser, "//main//summary[contains(., '2 trackers blocked')]")
    by_xpath(browser, "//main//p[contains(., '3 remote images blocked')]")
    frame = by_xpath(browser, "//main//article//iframe")
    source = frame.get_attribute("src")
    _, body = get(app, source)
    body = body.decode()
    for gone in ("<script", "<iframe", "<form", "onclick", "onmouseover", "pixel-one", "pixel-two", "images.example"):
        assert gone not in body, gone
    assert "<b>results</b>" in body and "<i>inside</i>" in body, "formatting kept"
    assert body.count('class="tern-blocked-image"') == 3, "a placeholder for each blocked image"
    assert 'target="_blank" rel="noopener noreferrer" title="https://example.org/report"' in body, "links open outside, destination shown"
    assert '<details class="tern-quote"><summary>Show quoted text</summary>' in body
    # "Load remote images": the three load, the two pixels stay stripped.
    by_xpath(browser, "//main//a[normalize-space()='Load remote images']").click()
    frame = by_xpath(browser, "//main//article//iframe[contains(@src, 'images=1')]")
    response, body = get(app, frame.get_attribute("src"))
    body = body.decode()
    assert body.count("https://images.example/") == 3 and "pixel-one" not in body and "pixel-two" not in body
    assert "img-src data: https: http:" in response.getheader("Content-Security-Policy")
    assert browser.execute_script("return window.ran === undefined")
    # "Show quoted text" opens inside the frame, without a request.
    browser.switch_to.frame(frame)
    try:
        summary = browser.find_element("xpath", "//summary[normalize-space()='Show quoted text']")
        summary.click()
        assert browser.find_element("xpath", "//details").get_attribute("open") is not None
        assert browser.find_element("xpath", "//blockquote").is_displayed()
    finally:
        browser.switch_to.default_content()


# ---- AC-U-10 and AC-U-10b: attachments ----------------------------------------------------------------------------

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\0" * (500 * 1024)


def test_ac_u_10_attachments_listed_downloaded_on_demand_warned_and_previewed(browser, app):
    stamp = uuid.uuid4().hex[:10]
    app["imap"].append("INBOX", "", None, message(f"Files {stamp}", attachments=[
        ("photo.png", "image", "png", PNG), ("contract.pdf", "application", "pdf", b"%PDF-1.4\n" + b"0" * (10 * 1024 * 1024)),
        ("setup.exe", "application", "octet-stream", b"MZ" + b"\0" * (2 * 1024 * 1024))]))
    sync(app["home"], USER)
    open_thread_by_name(browser, app, f"Files {stamp}")
    section = by_xpath(browser, "//main//section[@aria-label='Attachments']")
    items = section.find_elements("xpath", ".//li")
    texts = [item.text for item in items]
    assert "photo.png" in texts[0] and "image/png" in texts[0] and "KB" in texts[0]
    assert "contract.pdf" in texts[1] and "application/pdf" in texts[1] and "10.0 MB" in texts[1]
    assert "setup.exe" in texts[2] and "2.0 MB" in texts[2]
    assert all("Download" in text and "downloaded" not in text for text in texts), "nothing downloads by itself"
    attachments = app["home"] / "attachments"
    assert not attachments.exists() or not any(attachments.rglob("*.*"))
    # The .exe asks first; Cancel downloads nothing.
    section.find_element("xpath", ".//li[contains(., 'setup.exe')]//button[normalize-space()='Download']").click()
    dialog = by_xpath(browser, "//dialog[@open]")
    assert "This file is a Windows executable." in dialog.text
    dialog.find_element("xpath", ".//button[normalize-space()='Cancel']").click()
    time.sleep(0.5)
    assert by_xpath(browser, "//li[contains(., 'setup.exe')]//button[normalize-space()='Download']")
    # The image downloads with progress and can be previewed; the PDF too.
    for name, kind in (("photo.png", "image/png"), ("contract.pdf", "application/pdf")):
        by_xpath(browser, f"//li[contains(., '{name}')]//button[normalize-space()='Download']").click()
        preview = by_xpath(browser, f"//li[contains(., '{name}')]//a[normalize-space()='Preview']", timeout=20)
        response, data = get(app, preview.get_attribute("href"))
        assert response.getheader("Content-Type") == kind and response.getheader("Content-Disposition").startswith("inline")
        assert response.getheader("X-Content-Type-Options") == "nosniff" and "sandbox" in response.getheader("Content-Security-Policy")
        assert wait_until(lambda: browser.find_element("xpath", f"//li[contains(., '{name}')]//a[normalize-space()='Save']")
                          .get_attribute("download") is not None)
    files = [path for path in attachments.rglob("*") if path.is_file()]
    assert len(files) == 2 and all(stat.S_IMODE(path.parent.stat().st_mode) == 0o700 for path in files)


def test_ac_u_10b_a_30_mb_attachment_on_a_metered_connection_asks_first(browser, app):
    subprocess.run([str(TERN), "settings", "set", "metered", "yes"], env=dict(os.environ, TERN_HOME=str(app["home"])), check=True)
    try:
        stamp = uuid.uuid4().hex[:10]
        app["imap"].append("INBOX", "", None, message(f"Video {stamp}", attachments=[
            ("talk.mp4", "video", "mp4", b"\0" * (30 * 1024 * 1024))]))
        sync(app["home"], USER)
        open_thread_by_name(browser, app, f"Video {stamp}")
        by_xpath(browser, "//li[contains(., 'talk.mp4')]//button[normalize-space()='Download']").click()
        dialog = by_xpath(browser, "//dialog[@open]")
        assert "This attachment is 30 MB. Download on cellular?" in dialog.text
        assert dialog.find_element("xpath", ".//button[normalize-space()='Download']") and dialog.find_element("xpath", ".//button[normalize-space()='Cancel']")
        dialog.find_element("xpath", ".//button[normalize-space()='Cancel']").click()
        time.sleep(0.5)
        assert by_xpath(browser, "//li[contains(., 'talk.mp4')]//button[normalize-space()='Download']")
        by_xpath(browser, "//li[contains(., 'talk.mp4')]//button[normalize-space()='Download']").click()
        by_xpath(browser, "//dialog[@open]//button[normalize-space()='Download']").click()
        by_xpath(browser, "//li[contains(., 'talk.mp4')]//a[normalize-space()='Save']", timeout=30)
    finally:
        subprocess.run([str(TERN), "settings", "set", "metered", "auto"], env=dict(os.environ, TERN_HOME=str(app["home"])), check=True)


def test_axe_finds_no_violation_with_attachments_and_notices(browser, app):
    open_thread_by_name(browser, app, "Files ")
    assert axe_violations(browser) == []


# ---- The whole hostile-vector corpus through the real app ---------------------------------------------------------

def test_no_vector_of_the_corpus_runs_or_loads_anything_through_the_app(browser, app):
    from selenium.common.exceptions import NoAlertPresentException
    remote = serve_recorder(records=True)
    Recorder.requests.clear()
    base = f"http://127.0.0.1:{remote.server_address[1]}"
    stamp = uuid.uuid4().hex[:10]
    for index, vector in enumerate(VECTORS):
        html = vector["html"].replace("{{REMOTE}}", base)
        app["imap"].append("INBOX", "(\\Seen)", None, message(f"Vector {index} {stamp}", html=html, text=f"vector {index}"))
    sync(app["home"], USER)
    hits = json.loads(subprocess.run([str(TERN), "search", stamp, "--json", "--limit", "1000"], env=dict(os.environ, TERN_HOME=str(app["home"])),
                                     check=True, capture_output=True, text=True).stdout)
    assert len(hits) == len(VECTORS)
    ran = []
    for hit in hits:
        browser.get(f"{app['base']}/bodies/{hit['emailId']}?thread={hit['threadId']}")
        try:
            browser.switch_to.alert.dismiss()
            ran.append(hit["subject"])
        except NoAlertPresentException:
            pass
    # A few whole conversations too, the bodies in their frames inside the app's page.
    for hit in hits[:25]:
        browser.get(f"{app['base']}/mail?thread={hit['threadId']}")
        try:
            browser.switch_to.alert.dismiss()
            ran.append(hit["subject"])
        except NoAlertPresentException:
            pass
    remote.shutdown()
    assert ran == []
    assert Recorder.requests == [], f"requests left the app: {Recorder.requests[:10]}"
