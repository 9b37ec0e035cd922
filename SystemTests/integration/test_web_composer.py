"""The composer in Chromium (issue 18, FR-COMP-01, 04): each composition mode sent through the real Postfix and read in
the recipient's mailbox over IMAP (headers, quoting, threading, forwarded attachments byte for byte), autocomplete by
keyboard only, validation and the confirmations, attachments added, removed and over the limit, and axe-core in the
composer's states. The undo delay is 0 here; the undo window has its own tests (test_web_compose.py)."""
import email
import os
import ssl
import subprocess
import time
import uuid
from email import policy

import pytest

from support.accounts import ACCEPTANCE_USER, add_account
from support.browser import axe_violations, by_xpath, chromium, open_thread_by_name
from support.imap import imap_for, newest_with_subject
from support.messages import acceptance_message as message
from support.servers import free_port
from support.tern import TERN, json_of, sync
from support.waiting import wait_until
from support.web import browser_sign_in, start_serve

USER = ACCEPTANCE_USER


@pytest.fixture(scope="module")
def composer(servers, tmp_path_factory):
    home = tmp_path_factory.mktemp("composer-home")
    add_account(home, servers, USER)
    env = dict(os.environ, TERN_HOME=str(home))
    subprocess.run([str(TERN), "settings", "set", "undo-send-delay", "0"], env=env, check=True)
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    stamp = uuid.uuid4().hex[:10]
    original_id = f"<original-{stamp}@tern.test>"
    imap.append("INBOX", "", None, message(
        f"Plans {stamp}", text="Shall we meet on Friday?\n> an older line", sender="Dave Example <dave@tern.test>",
        message_id=original_id,
        attachments=[("agenda.pdf", "application", "pdf", b"%PDF-1.4 agenda " + os.urandom(2048))]).replace(
            b"To: carol@tern.test", b"To: carol@tern.test\nCc: Bob Example <bob@tern.test>"))
    sync(home, USER)
    port = free_port()
    server = start_serve(home, port)  # with its engine: the queue is pushed
    driver = chromium()
    yield {"home": home, "base": browser_sign_in(driver, port), "stamp": stamp, "original": original_id, "servers": servers, "browser": driver,
           "imap": imap}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)
    imap.logout()


def received(servers, user, subject, timeout=30):
    """The message as the recipient's mailbox holds it, once it arrived."""
    return newest_with_subject(servers, user, subject, timeout=timeout)


def open_composer(app, label):
    browser = app["browser"]
    open_thread_by_name(browser, app, f"Plans {app['stamp']}")
    by_xpath(browser, f"//div[@role='toolbar']//a[normalize-space()='{label}']").click()
    return by_xpath(browser, "//form[@aria-labelledby='composer-title']")


def send(browser):
    button = by_xpath(browser, "//form[@aria-labelledby='composer-title']//button[normalize-space()='Send']")
    assert wait_until(lambda: button.get_attribute("disabled") is None), "Send is enabled once the checks pass"
    button.click()
    by_xpath(browser, "//div[@id='toasts']//*[contains(., 'Message sent')]", timeout=30)


def test_reply_threads_for_the_recipient_and_quotes_the_original(composer):
    browser = composer["browser"]
    open_composer(composer, "Reply")
    tokens = [t.get_attribute("data-address") for t in browser.find_elements("xpath", "//ul[@aria-label='To recipients']/li")]
    assert tokens == ["Dave Example <dave@tern.test>"]
    body = browser.switch_to.active_element
    assert body.get_attribute("id") == "compose-body"
    body.send_keys("Friday works. **See you** then.")
    send(browser)
    copy, count = received(composer["servers"], "dave", f"Re: Plans {composer['stamp']}")
    assert count == 1
    assert copy["In-Reply-To"] == composer["original"] and composer["original"] in copy["References"]
    text = copy.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")
    assert "Friday works. *See you* then." in text
    assert "wrote:\n> Shall we meet on Friday?\n>> an older line" in text, text  # quote depth, not stuffed text
    html = copy.get_body(preferencelist=("html",)).get_content()
    assert "<b>See you</b>" in html


def test_reply_all_keeps_everyone_but_the_user(composer):
    browser = composer["browser"]
    open_composer(composer, "Reply all")
    to = [t.get_attribute("data-address") for t in browser.find_elements("xpath", "//ul[@aria-label='To recipients']/li")]
    cc = [t.get_attribute("data-address") for t in browser.find_elements("xpath", "//ul[@aria-label='Cc recipients']/li")]
    assert to == ["Dave Example <dave@tern.test>"] and cc == ["Bob Example <bob@tern.test>"]
    send(browser)
    copy, _ = received(composer["servers"], "bob", f"Re: Plans {composer['stamp']}")
    assert copy is not None and "bob@tern.test" in copy["Cc"] and "carol@tern.test" not in (copy["To"] + copy["Cc"])


def test_forward_carries_the_original_attachment_byte_for_byte(composer):
    browser = composer["browser"]
    form = open_composer(composer, "Forward")
    assert form.find_element("xpath", ".//li[contains(., 'agenda.pdf')]//button[@aria-label='Remove agenda.pdf']")
    to = browser.switch_to.active_element
    assert to.get_attribute("id") == "compose-to"
    to.send_keys("bob@tern.test,")
    send(browser)
    copy, _ = received(composer["servers"], "bob", f"Fwd: Plans {composer['stamp']}")
    [attachment] = list(copy.iter_attachments())
    original = composer["imap"]
    original.select("INBOX")
    uid = original.uid("SEARCH", None, "HEADER", "Message-ID", composer["original"])[1][0].split()[0]
    source = email.message_from_bytes(original.uid("FETCH", uid, "(BODY.PEEK[])")[1][0][1], policy=policy.default)
    [expected] = list(source.iter_attachments())
    assert attachment.get_filename() == "agenda.pdf" and attachment.get_content() == expected.get_content()
    assert "---------- Forwarded message ----------" in copy.get_body(preferencelist=("plain",)).get_content()


def test_autocomplete_by_keyboard_only(composer):
    from selenium.webdriver.common.keys import Keys
    browser = composer["browser"]
    browser.get(f"{composer['base']}/mail?compose=new")
    to = by_xpath(browser, "//input[@role='combobox' and @id='compose-to']")
    assert browser.switch_to.active_element == to
    to.send_keys("dav")
    listbox = by_xpath(browser, "//ul[@role='listbox' and @id='compose-to-listbox']")
    assert wait_until(lambda: to.get_attribute("aria-expanded") == "true")
    option = by_xpath(browser, "//ul[@id='compose-to-listbox']/li[@role='option']")
    assert "dave@tern.test" in option.text and "Dave Example" in option.text
    to.send_keys(Keys.ARROW_DOWN)
    assert to.get_attribute("aria-activedescendant") == option.get_attribute("id")
    to.send_keys(Keys.ENTER)
    assert wait_until(lambda: [t.get_attribute("data-address") for t in browser.find_elements("xpath", "//ul[@aria-label='To recipients']/li")]
                      == ["Dave Example <dave@tern.test>"])
    assert listbox.get_attribute("hidden") is not None
    to.send_keys("b")
    by_xpath(browser, "//ul[@id='compose-to-listbox']/li[@role='option']")
    to.send_keys(Keys.ESCAPE)
    assert wait_until(lambda: to.get_attribute("aria-expanded") == "false")
    assert axe_violations(browser) == []


def test_invalid_recipients_block_and_the_confirmations_are_asked(composer):
    browser = composer["browser"]
    browser.get(f"{composer['base']}/mail?compose=new")
    to = by_xpath(browser, "//input[@id='compose-to']")
    to.send_keys("not an address,")
    token = by_xpath(browser, "//ul[@aria-label='To recipients']/li[contains(@class, 'invalid')]")
    assert wait_until(lambda: "Invalid address" in token.text)
    send_button = browser.find_element("xpath", "//button[normalize-space()='Send']")
    assert wait_until(lambda: send_button.get_attribute("disabled") is not None)
    assert axe_violations(browser) == []
    browser.find_element("xpath", "//button[@aria-label='Remove not an address']").click()
    to = browser.find_element("id", "compose-to")
    to.send_keys("bob@tern.test,")
    assert wait_until(lambda: send_button.get_attribute("disabled") is None)
    send_button.click()
    dialog = by_xpath(browser, "//dialog[@open]")
    assert dialog.find_element("xpath", ".//h2").text == "Send without subject?"
    assert axe_violations(browser) == []
    dialog.find_element("xpath", ".//button[normalize-space()='Cancel']").click()
    assert browser.find_elements("xpath", "//form[@aria-labelledby='composer-title']"), "still composing"


def test_attachments_added_removed_and_over_the_limit(composer, tmp_path):
    browser = composer["browser"]
    browser.get(f"{composer['base']}/mail?compose=new")
    small = tmp_path / "notes.txt"
    small.write_text("some notes")
    big = tmp_path / "huge.bin"
    with open(big, "wb") as f:
        f.truncate(26 * 1024 * 1024)
    picker = browser.find_element("xpath", "//input[@type='file']")
    assert browser.find_element("xpath", "//label[@for='compose-files']").text == "Attach files"
    picker.send_keys(str(small))
    # "Attaching notes.txt…" first, then the uploaded file with its size.
    item = "//ul[@id='compose-attachments']/li[contains(., 'notes.txt')]"
    assert wait_until(lambda: "10 bytes" in browser.find_element("xpath", item).text, 10), by_xpath(browser, item).text
    assert axe_violations(browser) == []
    picker.send_keys(str(big))
    by_xpath(browser, "//ul[@id='compose-attachments']/li[contains(., 'huge.bin')]", timeout=30)
    browser.find_element("id", "compose-to").send_keys("bob@tern.test,")
    warning = by_xpath(browser, "//*[@id='attachments-size' and not(@hidden)]")
    assert "over 25 MB" in warning.text
    assert browser.find_element("xpath", "//button[normalize-space()='Send']").get_attribute("disabled") is not None
    browser.find_element("xpath", "//button[@aria-label='Remove huge.bin']").click()
    assert wait_until(lambda: browser.find_element("xpath", "//button[normalize-space()='Send']").get_attribute("disabled") is None)
    assert not browser.find_elements("xpath", "//ul[@id='compose-attachments']/li[contains(., 'huge.bin')]")


def test_a_refused_send_reaches_the_page_through_the_event_stream_without_polling(composer):
    """CO01-E2, SY07-7 (issue 34): the outcome of a send comes as an event, however late; the page asks the send's status
    once when it starts watching (and when the stream reconnects), never on a timer."""
    browser, servers = composer["browser"], composer["servers"]
    form = open_composer(composer, "Forward")
    form.find_element("id", "compose-to").send_keys(f"nobody@{servers['TERN_TEST_DOMAIN']},")
    button = by_xpath(browser, "//form[@aria-labelledby='composer-title']//button[normalize-space()='Send']")
    assert wait_until(lambda: button.get_attribute("disabled") is None)
    button.click()
    toast = by_xpath(browser, "//div[@id='toasts']//*[contains(., \"Couldn't send message. Tap to retry.\")]", timeout=30)
    assert toast.find_elements("xpath", ".//ancestor-or-self::*//button[normalize-space()='Retry']") or \
        browser.find_elements("xpath", "//div[@id='toasts']//button[normalize-space()='Retry']")
    status_requests = "return performance.getEntriesByType('resource').filter(e => e.name.includes('compose/status')).length"
    asked = browser.execute_script(status_requests)
    assert asked <= 1, f"the status is asked once at most, not polled ({asked} requests)"
    time.sleep(6)
    assert browser.execute_script(status_requests) == asked, "no polling while the page waits"

    # "Tap to retry" (issue 34): the failed message itself comes back in the composer, its attachment with it, and
    # leaves the Outbox; nothing is left there to be sent twice.
    failed = [entry for entry in json_of(composer["home"], "outbox") if entry["state"] == "failed"]
    assert len(failed) == 1, failed
    by_xpath(browser, "//div[@id='toasts']//button[normalize-space()='Retry']").click()
    form = by_xpath(browser, "//form[@aria-labelledby='composer-title']")
    assert wait_until(lambda: form.find_element("id", "compose-subject").get_attribute("value") == f"Fwd: Plans {composer['stamp']}")
    assert "agenda.pdf" in form.text
    assert form.find_element("xpath", ".//input[@name='draft']").get_attribute("value"), "the message's own draft"
    assert wait_until(lambda: all(e["emailId"] != failed[0]["emailId"] for e in json_of(composer["home"], "outbox")))
