"""The web composer with two accounts (issue 34, CO01-M1): a From picker lists every account by name and address,
defaults to the account of the folder being viewed (a new message) or to the account the original was delivered to
(reply, reply all, forward), and each account sends from its own address through the real Postfix with its Sent copy
in its own account's Sent folder on the real Dovecot. axe-core finds nothing on the composer with the picker."""
import os
import ssl
import subprocess
import uuid

import pytest

from support.accounts import add_account
from support.browser import axe_violations, by_xpath, chromium, open_thread_by_name
from support.imap import imap_for, uids_with_subject
from support.messages import raw_message
from support.servers import free_port, user_address
from support.tern import TERN, sync
from support.waiting import wait_until
from support.web import browser_sign_in, start_serve

ALICE, BOB, RECIPIENT = "alice", "bob", "dave"
SENT = "[Gmail]/Sent Mail"
FROM_PICKER = "//select[@id=//label[normalize-space()='From']/@for]"


@pytest.fixture(scope="module")
def two_accounts(servers, tmp_path_factory):
    home = tmp_path_factory.mktemp("from-picker-home")
    add_account(home, servers, ALICE)
    add_account(home, servers, BOB)
    subprocess.run([str(TERN), "settings", "set", "undo-send-delay", "0"], env=dict(os.environ, TERN_HOME=str(home)), check=True)
    stamp = uuid.uuid4().hex[:10]
    bob = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), BOB)
    try:
        bob.append("INBOX", "", None, raw_message(user_address(servers, BOB), f"For Bob {stamp}", "Are you coming?",
                                                  sender="Dave Example <dave@tern.test>", minutes_ago=5))
    finally:
        bob.logout()
    sync(home, ALICE)
    sync(home, BOB)
    port = free_port()
    server = start_serve(home, port)  # with its engine: the queue is pushed
    driver = chromium()
    yield {"base": browser_sign_in(driver, port), "stamp": stamp, "servers": servers, "browser": driver}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)


def picker(browser):
    from selenium.webdriver.support.ui import Select
    return Select(by_xpath(browser, FROM_PICKER))


def mailbox_count(servers, user, folder, subject):
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), user)
    try:
        return len(uids_with_subject(imap, folder, subject))
    finally:
        imap.logout()


def sender_of(servers, subject):
    """The From header of the message the recipient received, once it arrived."""
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), RECIPIENT)
    try:
        def header():
            imap.select("INBOX")
            uids = imap.uid("SEARCH", None, "SUBJECT", f'"{subject}"')[1][0].split()
            if not uids:
                return None
            return imap.uid("FETCH", uids[-1], "(BODY.PEEK[HEADER.FIELDS (FROM)])")[1][0][1].decode()
        found = wait_until(header, timeout=30)
        return header() if found else None
    finally:
        imap.logout()


def send(browser):
    button = by_xpath(browser, "//form[@aria-labelledby='composer-title']//button[normalize-space()='Send']")
    assert wait_until(lambda: button.get_attribute("disabled") is None), "Send is enabled once the checks pass"
    button.click()
    by_xpath(browser, "//div[@id='toasts']//*[contains(., 'Message sent')]", timeout=30)


def assert_sent_from(app, user, other, subject):
    servers = app["servers"]
    assert user_address(servers, user) in (sender_of(servers, subject) or "")
    assert wait_until(lambda: mailbox_count(servers, user, SENT, subject) == 1, timeout=30), f"{user}'s Sent holds the copy"
    assert mailbox_count(servers, other, SENT, subject) == 0, f"nothing in {other}'s Sent"


def write_and_send(app, subject, *, sender, other):
    """A new message to the recipient written in the open composer and sent: it comes from `sender` alone."""
    browser = app["browser"]
    browser.find_element("id", "compose-to").send_keys(f"{RECIPIENT}@tern.test,")
    browser.find_element("id", "compose-subject").send_keys(subject)
    browser.find_element("id", "compose-body").send_keys(f"Sent from {sender}'s account.")
    send(browser)
    assert_sent_from(app, sender, other, subject)


def test_a_new_message_defaults_to_the_folder_account_and_the_picker_changes_it(two_accounts):
    app, browser = two_accounts, two_accounts["browser"]
    servers = app["servers"]
    browser.get(f"{app['base']}/mail?account={BOB}&folder=INBOX&compose=new")
    choice = picker(browser)
    options = [option.text for option in choice.options]
    assert len(options) == 2 and any(user_address(servers, ALICE) in text for text in options) \
        and any(user_address(servers, BOB) in text for text in options), options
    assert user_address(servers, BOB) in choice.first_selected_option.text, "the viewed folder's account"
    assert axe_violations(browser) == []

    browser.get(f"{app['base']}/mail?account={ALICE}&folder=INBOX&compose=new")
    assert user_address(servers, ALICE) in picker(browser).first_selected_option.text

    # Alice's folder is viewed; the picker sends from Bob instead, by keyboard.
    from selenium.webdriver.common.keys import Keys
    select = by_xpath(browser, FROM_PICKER)
    select.send_keys(Keys.ARROW_DOWN)  # the accounts by name: alice, then bob
    assert wait_until(lambda: user_address(servers, BOB) in picker(browser).first_selected_option.text)
    write_and_send(app, f"From Bob by the picker {app['stamp']}", sender=BOB, other=ALICE)


def test_each_account_sends_from_its_own_address(two_accounts):
    app, browser = two_accounts, two_accounts["browser"]
    browser.get(f"{app['base']}/mail?account={ALICE}&folder=INBOX&compose=new")
    assert user_address(app["servers"], ALICE) in picker(browser).first_selected_option.text
    write_and_send(app, f"From Alice {app['stamp']}", sender=ALICE, other=BOB)


def test_a_reply_defaults_to_the_account_the_original_was_delivered_to(two_accounts):
    app, browser = two_accounts, two_accounts["browser"]
    open_thread_by_name(browser, app, f"For Bob {app['stamp']}")
    by_xpath(browser, "//div[@role='toolbar']//a[normalize-space()='Reply']").click()
    by_xpath(browser, "//form[@aria-labelledby='composer-title']")
    assert user_address(app["servers"], BOB) in picker(browser).first_selected_option.text
    assert axe_violations(browser) == []
    browser.switch_to.active_element.send_keys("Yes, I am.")
    send(browser)
    assert_sent_from(app, BOB, ALICE, f"Re: For Bob {app['stamp']}")
