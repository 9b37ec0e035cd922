"""Drafts in the web composer, in Chromium (issue 18, FR-COMP-01 "Draft Auto-Save Lifecycle", FR-COMP-02): the first
edit saved ("Draft saved") and on the server, Close keeping a draft, the Drafts list reopening it with every field,
"Delete draft?" with Delete and Keep Editing, another device's version offered with Reload and Keep Local, Undo
returning the message as a draft, and axe in these states. Elements are found by role and accessible name."""
import email
import email.message
import json
import os
import ssl
import subprocess
import time
import uuid
from email import policy

import pytest

from support.accounts import add_account
from support.browser import axe_violations, by_xpath, chromium
from support.imap import imap_for
from support.servers import free_port
from support.tern import TERN
from support.waiting import wait_until
from support.web import browser_sign_in, start_serve

USER = "carol"
DRAFTS = "[Gmail]/Drafts"


@pytest.fixture(scope="module")
def app(servers, tmp_path_factory):
    home = tmp_path_factory.mktemp("drafts-home")
    add_account(home, servers, USER)
    env = dict(os.environ, TERN_HOME=str(home))
    subprocess.run([str(TERN), "sync", USER], env=env, check=True, capture_output=True)
    port = free_port()
    # Shortened for the test: the engine compares synced drafts every 2 s (not 60), the composer autosaves every 2 s (not 30).
    os.environ.update(TERN_DRAFT_CHECK_SECONDS="2", TERN_AUTOSAVE_SECONDS="2")
    try:
        server = start_serve(home, port)
    finally:
        del os.environ["TERN_DRAFT_CHECK_SECONDS"], os.environ["TERN_AUTOSAVE_SECONDS"]
    driver = chromium()
    yield {"home": home, "base": browser_sign_in(driver, port), "servers": servers, "browser": driver}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)


def server_drafts(servers, subject):
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    try:
        imap.select(f'"{DRAFTS}"')
        uids = imap.uid("SEARCH", None, "SUBJECT", f'"{subject}"')[1][0].split()
        # An autosave replaces the draft (APPEND, then the old one expunged): a UID searched a moment
        # ago may be gone by its FETCH, which then returns no message.
        fetched = [imap.uid("FETCH", uid, "(BODY.PEEK[])")[1] for uid in uids]
        return [email.message_from_bytes(data[0][1], policy=policy.default) for data in fetched if data and isinstance(data[0], tuple)]
    finally:
        imap.logout()


def composer(browser):
    return by_xpath(browser, "//form[@aria-labelledby='composer-title']")


def write(app, subject, body):
    browser = app["browser"]
    browser.get(f"{app['base']}/mail")
    by_xpath(browser, "//a[normalize-space()='Compose']").click()
    composer(browser)
    to = by_xpath(browser, "//input[@role='combobox' and @id='compose-to']")
    to.send_keys("dave@tern.test,")
    browser.find_element("xpath", "//input[@id='compose-subject']").send_keys(subject)
    browser.find_element("xpath", "//textarea[@id='compose-body']").send_keys(body)


def status(browser):
    return browser.find_element("xpath", "//form[@aria-labelledby='composer-title']//*[@role='status' and @id='draft-status']").text


def open_from_drafts(app, subject):
    browser = app["browser"]
    browser.get(f"{app['base']}/mail")
    by_xpath(browser, "//nav[@aria-label='Folders']//a[normalize-space()='Drafts']").click()
    by_xpath(browser, f"//a[starts-with(@aria-label, 'Draft.') and contains(@aria-label, '{subject}')]", timeout=10).click()
    return composer(browser)


def test_the_first_edit_is_saved_and_close_keeps_a_draft_that_reopens_whole(app):
    browser = app["browser"]
    subject = f"Autosaved {uuid.uuid4().hex[:8]}"
    write(app, subject, "First thoughts.")
    assert wait_until(lambda: status(browser) == "Draft saved", timeout=10), status(browser)
    assert "compose=draft" in browser.current_url, "a reload resumes the draft"
    assert wait_until(lambda: len(server_drafts(app["servers"], subject)) == 1, timeout=15), "the server's Drafts has it"
    browser.find_element("xpath", "//textarea[@id='compose-body']").send_keys(" Second thoughts.")
    browser.find_element("xpath", "//form[@aria-labelledby='composer-title']//a[normalize-space()='Close']").click()
    by_xpath(browser, "//div[@id='toasts']//*[contains(., 'Draft saved')]")

    form = open_from_drafts(app, subject)
    tokens = [t.get_attribute("data-address") for t in form.find_elements("xpath", ".//ul[@aria-label='To recipients']/li")]
    assert tokens == ["dave@tern.test"]
    assert form.find_element("xpath", ".//input[@id='compose-subject']").get_attribute("value") == subject
    assert form.find_element("xpath", ".//textarea[@id='compose-body']").get_attribute("value") == "First thoughts. Second thoughts."
    assert wait_until(lambda: [m.get_body(("plain",)).get_content().strip() for m in server_drafts(app["servers"], subject)]
                      == ["First thoughts. Second thoughts."], timeout=15), "one version on the server, the last"
    assert axe_violations(browser) == []


def test_autosave_runs_on_its_interval_while_the_content_changes(app):
    browser = app["browser"]
    subject = f"Interval {uuid.uuid4().hex[:8]}"
    write(app, subject, "Typed first.")
    assert wait_until(lambda: status(browser) == "Draft saved", timeout=10)
    browser.find_element("xpath", "//textarea[@id='compose-body']").send_keys(" Typed later, never saved by hand.")
    assert wait_until(lambda: [m.get_body(("plain",)).get_content().strip() for m in server_drafts(app["servers"], subject)]
                      == ["Typed first. Typed later, never saved by hand."], timeout=20), "the interval saved it, and the server has it"


def test_a_draft_resumes_with_cc_bcc_and_attachments(app, tmp_path):
    browser = app["browser"]
    subject = f"Every field {uuid.uuid4().hex[:8]}"
    write(app, subject, "With everything.")
    browser.find_element("xpath", "//button[normalize-space()='Add Cc']").click()
    by_xpath(browser, "//input[@role='combobox' and @id='compose-cc']").send_keys("bob@tern.test,")
    browser.find_element("xpath", "//button[normalize-space()='Add Bcc']").click()
    by_xpath(browser, "//input[@role='combobox' and @id='compose-bcc']").send_keys("alice@tern.test,")
    notes = tmp_path / "notes.txt"
    notes.write_text("some notes")
    browser.find_element("xpath", "//input[@type='file']").send_keys(str(notes))
    by_xpath(browser, "//ul[@id='compose-attachments']/li[contains(., 'notes.txt')]")
    browser.find_element("xpath", "//form[@aria-labelledby='composer-title']//a[normalize-space()='Close']").click()
    by_xpath(browser, "//div[@id='toasts']//*[contains(., 'Draft saved')]")

    form = open_from_drafts(app, subject)
    def tokens(field):
        return [t.get_attribute("data-address") for t in form.find_elements("xpath", f".//ul[@aria-label='{field} recipients']/li")]
    assert tokens("To") == ["dave@tern.test"] and tokens("Cc") == ["bob@tern.test"] and tokens("Bcc") == ["alice@tern.test"]
    assert form.find_element("xpath", ".//ul[@id='compose-attachments']/li[contains(., 'notes.txt')]")
    assert wait_until(lambda: len(server_drafts(app["servers"], subject)) == 1, timeout=15)
    [copy] = server_drafts(app["servers"], subject)
    assert "alice@tern.test" in copy["Bcc"], "the server's copy keeps Bcc, as a draft must"
    assert [part.get_filename() for part in copy.iter_attachments()] == ["notes.txt"]
    assert axe_violations(browser) == []


def test_delete_draft_asks_first_and_removes_it_here_and_on_the_server(app):
    browser = app["browser"]
    subject = f"To delete {uuid.uuid4().hex[:8]}"
    write(app, subject, "Not needed after all.")
    assert wait_until(lambda: status(browser) == "Draft saved", timeout=10)
    assert wait_until(lambda: len(server_drafts(app["servers"], subject)) == 1, timeout=15)
    browser.find_element("xpath", "//button[normalize-space()='Delete draft']").click()
    dialog = by_xpath(browser, "//dialog[@open][.//h2[normalize-space()='Delete draft?']]")
    assert axe_violations(browser) == []
    dialog.find_element("xpath", ".//button[normalize-space()='Keep Editing']").click()
    assert composer(browser).is_displayed()
    browser.find_element("xpath", "//button[normalize-space()='Delete draft']").click()
    by_xpath(browser, "//dialog[@open]//button[normalize-space()='Delete']").click()
    by_xpath(browser, "//div[@id='toasts']//*[contains(., 'Draft deleted')]")
    assert wait_until(lambda: server_drafts(app["servers"], subject) == [], timeout=15)
    browser.get(f"{app['base']}/mail?view=drafts&account={USER}")
    time.sleep(0.5)
    assert browser.find_elements("xpath", f"//a[contains(@aria-label, '{subject}')]") == []


def test_another_devices_version_is_offered_with_reload_and_keep_local(app):
    browser = app["browser"]
    subject = f"Two devices {uuid.uuid4().hex[:8]}"
    write(app, subject, "From the laptop.")
    assert wait_until(lambda: status(browser) == "Draft saved", timeout=10)
    assert wait_until(lambda: len(server_drafts(app["servers"], subject)) == 1, timeout=15)
    time.sleep(3)  # the engine's next comparison sees the copy it wrote
    imap = imap_for(app["servers"], ssl.create_default_context(cafile=app["servers"]["TERN_TEST_CA"]), USER)
    try:
        imap.select(f'"{DRAFTS}"')
        [uid] = imap.uid("SEARCH", None, "SUBJECT", f'"{subject}"')[1][0].split()
        theirs = email.message_from_bytes(imap.uid("FETCH", uid, "(BODY.PEEK[])")[1][0][1], policy=policy.default)
        theirs.replace_header("Subject", subject + " phone")
        theirs.get_body(("plain",)).set_content("From the phone.")
        imap.append(f'"{DRAFTS}"', "(\\Draft \\Seen)", None, theirs.as_bytes())
        imap.uid("STORE", uid, "+FLAGS.SILENT", "(\\Deleted)")
        imap.uid("EXPUNGE", uid)
    finally:
        imap.logout()
    dialog = by_xpath(browser, "//dialog[@open][.//h2[normalize-space()='This draft was updated on another device. Reload?']]", timeout=30)
    assert [b.text for b in dialog.find_elements("xpath", ".//button")] == ["Keep Local", "Reload"]
    assert axe_violations(browser) == []
    dialog.find_element("xpath", ".//button[normalize-space()='Reload']").click()
    assert wait_until(lambda: browser.find_element("xpath", "//input[@id='compose-subject']").get_attribute("value") == subject + " phone",
                      timeout=10)
    assert browser.find_element("xpath", "//textarea[@id='compose-body']").get_attribute("value").strip() == "From the phone."


def test_undo_returns_the_message_as_a_draft(app):
    browser = app["browser"]
    subject = f"Undone {uuid.uuid4().hex[:8]}"
    write(app, subject, "On second thought…")
    button = browser.find_element("xpath", "//form[@aria-labelledby='composer-title']//button[normalize-space()='Send']")
    assert wait_until(lambda: button.get_attribute("disabled") is None), "Send is enabled once the checks pass"
    button.click()
    by_xpath(browser, "//div[@id='toasts']//button[normalize-space()='Undo']").click()
    by_xpath(browser, "//div[@id='toasts']//*[contains(., 'Sending cancelled')]")
    form = composer(browser)
    assert form.find_element("xpath", ".//input[@id='compose-subject']").get_attribute("value") == subject
    assert "compose=draft" in browser.current_url
    form.find_element("xpath", ".//a[normalize-space()='Close']").click()
    form = open_from_drafts(app, subject)
    assert form.find_element("xpath", ".//textarea[@id='compose-body']").get_attribute("value") == "On second thought…"
    assert axe_violations(browser) == []


def test_closing_the_page_in_the_undo_window_leaves_a_draft_and_sends_nothing(app):
    browser = app["browser"]
    subject = f"Left the page {uuid.uuid4().hex[:8]}"
    write(app, subject, "Sent, then the tab closed.")
    button = browser.find_element("xpath", "//form[@aria-labelledby='composer-title']//button[normalize-space()='Send']")
    assert wait_until(lambda: button.get_attribute("disabled") is None)
    button.click()
    by_xpath(browser, "//div[@id='toasts']//button[normalize-space()='Undo']")
    browser.get("about:blank")  # the page goes away inside the window

    def drafted():
        listed = json.loads(subprocess.run([str(TERN), "drafts", "list", "--json"], env=dict(os.environ, TERN_HOME=str(app["home"])),
                                           check=True, capture_output=True, text=True).stdout)
        return [d["subject"] for d in listed if d["subject"] == subject] == [subject]
    started = time.monotonic()
    assert wait_until(drafted, timeout=3), "leaving the page undid it at once: a draft again"
    time.sleep(max(0, 7 - (time.monotonic() - started)))  # past the window: still nothing sent
    imap = imap_for(app["servers"], ssl.create_default_context(cafile=app["servers"]["TERN_TEST_CA"]), "dave")
    try:
        imap.select("INBOX")
        assert imap.uid("SEARCH", None, "SUBJECT", f'"{subject}"')[1][0].split() == []
    finally:
        imap.logout()
    browser.get(f"{app['base']}/mail")


@pytest.mark.parametrize("layout", ["one pane", "200% zoom"])
def test_the_composer_with_its_draft_status_and_countdown_has_no_axe_violation(app, layout):
    browser = app["browser"]
    try:
        if layout == "one pane":
            browser.set_window_size(400, 800)
        else:
            browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 640, "height": 450, "deviceScaleFactor": 2, "mobile": False})
        subject = f"Axe {layout} {uuid.uuid4().hex[:6]}"
        write(app, subject, "Checked by axe.")
        assert wait_until(lambda: status(browser) == "Draft saved", timeout=10)
        if layout == "200% zoom":
            assert browser.execute_script("return document.documentElement.scrollWidth <= document.documentElement.clientWidth"), \
                "no sideways scrolling at 200%"
        assert axe_violations(browser) == []
        button = browser.find_element("xpath", "//form[@aria-labelledby='composer-title']//button[normalize-space()='Send']")
        assert wait_until(lambda: button.get_attribute("disabled") is None)
        button.click()
        undo = by_xpath(browser, "//div[@id='toasts']//button[normalize-space()='Undo']")
        time.sleep(0.5)
        assert axe_violations(browser) == []
        undo.click()
        by_xpath(browser, "//div[@id='toasts']//*[contains(., 'Sending cancelled')]")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.set_window_size(1280, 900)


def test_a_forwarded_attachment_not_downloaded_yet_can_be_fetched_from_the_composer(app):
    browser = app["browser"]
    subject = f"Contract {uuid.uuid4().hex[:8]}"
    message = email.message.EmailMessage()
    message["From"] = "Dave Example <dave@tern.test>"
    message["To"] = "carol@tern.test"
    message["Subject"] = subject
    message.set_content("The contract is attached.")
    message.add_attachment(b"%PDF-1.4 contract " + os.urandom(4096), maintype="application", subtype="pdf", filename="contract.pdf")
    imap = imap_for(app["servers"], ssl.create_default_context(cafile=app["servers"]["TERN_TEST_CA"]), USER)
    try:
        imap.append("INBOX", "", None, message.as_bytes())
    finally:
        imap.logout()
    subprocess.run([str(TERN), "sync", USER], env=dict(os.environ, TERN_HOME=str(app["home"])), check=True, capture_output=True)
    browser.get(f"{app['base']}/mail")
    by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, '{subject}')]", timeout=10).click()
    by_xpath(browser, "//div[@role='toolbar']//a[normalize-space()='Forward']").click()
    item = by_xpath(browser, "//ul[@id='compose-attachments']/li[contains(., 'contract.pdf')]")
    assert "not downloaded yet" in item.text
    assert axe_violations(browser) == []
    item.find_element("xpath", ".//button[@aria-label='Download contract.pdf now']").click()
    assert wait_until(lambda: "downloaded" in item.text and "not downloaded" not in item.text, timeout=20), item.text
    by_xpath(browser, "//div[@id='toasts']//*[contains(., 'contract.pdf downloaded')]")


def test_two_composers_in_two_tabs_keep_their_own_drafts(app):
    """CO§7-4 (issue 34): two composers open at once, in two tabs, each autosaving its own draft; edits in one never
    overwrite the other, here or in the server's Drafts."""
    browser = app["browser"]
    stamp = uuid.uuid4().hex[:8]
    first, second = f"First tab {stamp}", f"Second tab {stamp}"
    write(app, first, "Written in the first tab.")
    assert wait_until(lambda: status(browser) == "Draft saved", timeout=15)
    first_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    try:
        write(app, second, "Written in the second tab.")
        assert wait_until(lambda: status(browser) == "Draft saved", timeout=15)
        browser.find_element("xpath", "//textarea[@id='compose-body']").send_keys(" More from the second.")
        browser.switch_to.window(first_tab)
        browser.find_element("xpath", "//textarea[@id='compose-body']").send_keys(" More from the first.")
        assert wait_until(lambda: status(browser) == "Draft saved", timeout=15)
        time.sleep(3)  # both tabs' autosaves (every 2 s here) have run again

        def drafts():
            listed = json.loads(subprocess.run([str(TERN), "drafts", "list", "--json"], env=dict(os.environ, TERN_HOME=str(app["home"])),
                                               check=True, capture_output=True, text=True).stdout)
            return {d["subject"]: d for d in listed if stamp in d["subject"]}
        assert wait_until(lambda: set(drafts()) == {first, second}), drafts()
        bodies = {subject: json.loads(subprocess.run([str(TERN), "drafts", "show", f"d{d['id']}", "--json"],
                                                     env=dict(os.environ, TERN_HOME=str(app["home"])), check=True,
                                                     capture_output=True, text=True).stdout)["body"]
                  for subject, d in drafts().items()}
        assert bodies[first].strip() == "Written in the first tab. More from the first.", bodies
        assert bodies[second].strip() == "Written in the second tab. More from the second.", bodies
        assert wait_until(lambda: len(server_drafts(app["servers"], first)) == 1 and len(server_drafts(app["servers"], second)) == 1,
                          timeout=20)
        assert "first tab" in server_drafts(app["servers"], first)[0].get_body(("plain",)).get_content()
        assert "second tab" in server_drafts(app["servers"], second)[0].get_body(("plain",)).get_content()
    finally:
        for handle in browser.window_handles:
            if handle != first_tab:
                browser.switch_to.window(handle)
                browser.close()
        browser.switch_to.window(first_tab)
