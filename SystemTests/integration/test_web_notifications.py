"""Issue 36, notifications in Chromium (the notification permission granted to the app's origin through CDP): Settings
has a Notifications section (found by role and name, axe-clean) whose choice is kept in the browser; with `tern serve`
watching the Inbox (IDLE), an unread message delivered through Postfix makes one notification with its sender and
subject, three arriving at once make one grouped notice ("3 new messages"), a message already read elsewhere
(appended with \\Seen) makes none, the "New mail" only choice hides sender and
subject, and a click opens the thread. `window.Notification` is wrapped before the event arrives so each notice is
observed. Issue 34 (ED§7-4): a downloaded attachment's Save link sets Chromium's DownloadURL drag data on dragstart."""
import json
import smtplib
import ssl
import time
import uuid
from email.message import EmailMessage

import pytest
from selenium.webdriver.support.ui import Select

from support.accounts import add_account
from support.browser import axe_violations, by_xpath, chromium
from support.imap import imap_for
from support.messages import raw_message
from support.servers import free_port, user_address
from support.tern import sync, tern
from support.waiting import wait_until
from support.web import browser_sign_in, origin, start_serve

USER = "carol"

RECORD_NOTICES = """
window.__notices = [];
const Real = window.Notification;
class Recording {
  constructor(title, options) { this.title = title; this.body = options?.body ?? ""; this.tag = options?.tag; this.listeners = {};
                                window.__notices.push(this); }
  addEventListener(name, listener) { this.listeners[name] = listener; }
  close() {}
  static get permission() { return Real.permission; }
  static requestPermission() { return Real.requestPermission(); }
}
window.Notification = Recording;
"""


def notices(browser):
    return browser.execute_script("return window.__notices.map(n => [n.title, n.body, n.tag])")


def deliver(servers, subject, sender="Nora Example <nora@example.org>"):
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, user_address(servers, USER), subject
    message.set_content(f"{subject}: hello.")
    with smtplib.SMTP("127.0.0.1", int(servers["TERN_SMTP_PORT"]), timeout=30) as smtp:
        smtp.send_message(message)


@pytest.fixture(scope="module")
def live(servers, tmp_path_factory):
    home = tmp_path_factory.mktemp("notifications-home")
    add_account(home, servers, USER)
    sync(home, USER)
    port = free_port()
    server = start_serve(home, port)
    driver = chromium()
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin(port), "permissions": ["notifications"]})
    yield {"base": browser_sign_in(driver, port), "browser": driver, "home": home, "servers": servers}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)


def choose(browser, base, label):
    browser.get(f"{base}/settings")
    section = by_xpath(browser, "//section[h2[normalize-space()='Notifications']]")
    select = section.find_element("xpath", ".//select[@id=//label[normalize-space()='New mail in the Inbox']/@for]")
    assert wait_until(select.is_displayed, 5), "the script shows the form"
    Select(select).select_by_visible_text(label)
    section.find_element("xpath", ".//button[normalize-space()='Save notifications']").click()
    return section


def listening(browser, base, label, settle):
    """`label` chosen, then the mail list open with its notices recorded, once the event stream and IDLE are up."""
    choose(browser, base, label)
    browser.get(f"{base}/mail")
    by_xpath(browser, "//h2[@id='list-title']")
    browser.execute_script(RECORD_NOTICES)
    time.sleep(settle)


def test_settings_turn_notifications_on_and_an_unread_arrival_notifies_with_sender_and_subject(live):
    browser, base, servers = live["browser"], live["base"], live["servers"]
    section = choose(browser, base, "Notify with sender and subject")
    assert wait_until(lambda: section.find_element("xpath", ".//p[@role='status']").text == "On: sender and subject.", 5)
    assert axe_violations(browser) == []

    browser.get(f"{base}/mail")
    by_xpath(browser, "//h2[@id='list-title']")
    browser.execute_script(RECORD_NOTICES)
    time.sleep(3)  # the event stream open and the engine watching (IDLE)
    read_subject = f"Read elsewhere {uuid.uuid4().hex[:8]}"
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    try:
        imap.append("INBOX", "(\\Seen)", None, raw_message(user_address(servers, USER), read_subject, sender="Old <old@example.org>"))
    finally:
        imap.logout()
    by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, '{read_subject}')]", timeout=30)
    time.sleep(1)
    assert notices(browser) == [], "mail already read elsewhere is not notified"

    subject = f"Lunch {uuid.uuid4().hex[:8]}"
    deliver(servers, subject)
    assert wait_until(lambda: len(notices(browser)) == 1, 30), notices(browser)
    assert notices(browser) == [["Nora Example", subject, "tern-new-mail"]]
    browser.execute_script("window.__notices[0].listeners.click()")
    by_xpath(browser, f"//main//h2[contains(., '{subject}')]", timeout=15)


def test_several_arriving_at_once_make_one_grouped_notice(live):
    """Three unread messages reaching the Inbox in one MOVE (so one pass of the engine sees them together) make one
    notice, "3 new messages", listing each sender and subject, not three."""
    browser, base, servers = live["browser"], live["base"], live["servers"]
    listening(browser, base, "Notify with sender and subject", settle=3)
    stamp = uuid.uuid4().hex[:8]
    staging = f"Staging-{stamp}"
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    try:
        imap.create(staging)
        for n in range(3):
            imap.append(staging, None, None,
                        raw_message(user_address(servers, USER), f"Batch {stamp} {n}", sender=f"Sender{n} <s{n}@example.org>"))
        imap.select(staging)
        assert imap.uid("MOVE", "1:*", "INBOX")[0] == "OK"
    finally:
        imap.logout()
    assert wait_until(lambda: len(notices(browser)) >= 1, 30), notices(browser)
    time.sleep(2)  # a second notice, were the three not grouped, would have come by now
    [[title, body, tag]] = notices(browser)
    assert title == "3 new messages" and tag == "tern-new-mail", (title, body)
    assert all(f"Batch {stamp} {n}" in body for n in range(3)), body


def test_new_mail_only_hides_sender_and_subject(live):
    browser, base, servers = live["browser"], live["base"], live["servers"]
    listening(browser, base, "Notify “New mail” only", settle=2)
    subject = f"Private {uuid.uuid4().hex[:8]}"
    deliver(servers, subject)
    assert wait_until(lambda: len(notices(browser)) == 1, 30), notices(browser)
    [[title, body, _]] = notices(browser)
    assert title == "New mail" and subject not in body and "Nora" not in body


def test_a_downloaded_attachment_drags_out_with_its_name_and_type(live):
    browser, base, servers, home = live["browser"], live["base"], live["servers"], live["home"]
    subject = f"Drag {uuid.uuid4().hex[:8]}"
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    try:
        imap.append("INBOX", "(\\Seen)", None, raw_message(user_address(servers, USER), subject,
                                                          attachments=[("report: q1.pdf", "application", "pdf", b"%PDF-1.4 test")]))
    finally:
        imap.logout()
    sync(home, USER)
    hits = [hit for hit in json.loads(tern(home, "search", subject, "--json").stdout) if hit["subject"] == subject]
    thread = hits[0]["threadId"]
    browser.get(f"{base}/mail?thread={thread}")
    by_xpath(browser, "//li[contains(., 'report')]//button[normalize-space()='Download']").click()
    save = by_xpath(browser, "//li[contains(., 'report')]//a[normalize-space()='Save']", timeout=30)
    data = browser.execute_script("""
      const link = arguments[0];
      const transfer = new DataTransfer();
      link.dispatchEvent(new DragEvent('dragstart', { bubbles: true, dataTransfer: transfer }));
      return transfer.getData('DownloadURL');
    """, save)
    kind, name, url = data.split(":", 2)
    assert kind == "application/pdf" and name.endswith("q1.pdf") and name.startswith("report"), data
    assert url.startswith(base + "/attachments/") and url.endswith("/file"), data
