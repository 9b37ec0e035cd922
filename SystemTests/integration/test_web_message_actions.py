"""Each message's actions in Chromium (issue 34, NFR-ED-03 custom actions, ED§7-3 context menu): a "More actions" menu
button per message named with its sender and time, a real menu (arrow keys, Home/End, Escape back to the button) opened
also by the context-menu key and a right click, whose Reply acts on THAT message (quoted, threaded under it, through the
real Postfix); the no-script links name the same message; axe-core finds nothing with the menu open."""
import email
import os
import ssl
import subprocess
import time
from email import policy

import pytest

from support.accounts import ACCEPTANCE_USER, add_account
from support.browser import axe_violations, by_xpath, chromium, open_thread_by_name
from support.imap import imap_for
from support.messages import plant_thread
from support.servers import free_port
from support.tern import TERN, sync
from support.waiting import wait_until
from support.web import browser_sign_in, start_serve

USER = ACCEPTANCE_USER
MENU_BUTTON = ".//button[@aria-haspopup='menu' and starts-with(@aria-label, 'More actions for the message from Dave Example, ')]"


@pytest.fixture(scope="module")
def thread(servers, tmp_path_factory):
    home = tmp_path_factory.mktemp("message-actions-home")
    add_account(home, servers, USER)
    subprocess.run([str(TERN), "settings", "set", "undo-send-delay", "0"], env=dict(os.environ, TERN_HOME=str(home)), check=True)
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    try:
        stamp, root = plant_thread(servers, imap, 3, to=USER, sender="Dave Example <dave@tern.test>")
    finally:
        imap.logout()
    sync(home, USER)
    port = free_port()
    server = start_serve(home, port)  # with its engine: the queue is pushed
    driver = chromium()
    yield {"base": browser_sign_in(driver, port), "stamp": stamp, "root": root, "servers": servers, "browser": driver}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)


def articles(browser):
    return browser.find_elements("xpath", "//article[contains(@class, 'message')]")


def open_menu_of_first(app):
    open_thread_by_name(app["browser"], app, f"Thread {app['stamp']}")
    first = articles(app["browser"])[0]
    return first, first.find_element("xpath", MENU_BUTTON)


def menu_of(browser, button):
    return browser.find_element("id", button.get_attribute("aria-controls"))


def active(browser):
    return browser.switch_to.active_element


def test_the_menu_by_keyboard_only(thread):
    from selenium.webdriver.common.keys import Keys
    browser = thread["browser"]
    first, button = open_menu_of_first(thread)
    assert len(articles(browser)) == 3 and len(browser.find_elements("xpath", MENU_BUTTON.replace(".//", "//"))) == 3
    menu = menu_of(browser, button)
    assert menu.get_attribute("role") == "menu" and not menu.is_displayed()
    button.send_keys(Keys.ENTER)
    assert wait_until(menu.is_displayed) and button.get_attribute("aria-expanded") == "true"
    items = [item.text for item in menu.find_elements("xpath", ".//*[@role='menuitem']")]
    assert items == ["Reply", "Reply all", "Forward", "Copy text", "Star", "Mark unread from here"], items
    assert active(browser).text == "Reply"
    active(browser).send_keys(Keys.ARROW_DOWN)
    assert active(browser).text == "Reply all"
    active(browser).send_keys(Keys.END)
    assert active(browser).text == "Mark unread from here"
    active(browser).send_keys(Keys.ARROW_DOWN)
    assert active(browser).text == "Reply", "the arrows wrap"
    active(browser).send_keys(Keys.ESCAPE)
    assert wait_until(lambda: not menu.is_displayed())
    assert active(browser) == button and button.get_attribute("aria-expanded") == "false"


def test_the_context_menu_key_and_a_right_click_open_it_and_axe_finds_nothing(thread):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    browser = thread["browser"]
    first, button = open_menu_of_first(thread)
    menu = menu_of(browser, button)
    toggle = first.find_element("xpath", ".//a[contains(@class, 'expand-toggle')]")
    toggle.send_keys(Keys.SHIFT, Keys.F10)
    assert wait_until(menu.is_displayed) and active(browser).text == "Reply"
    assert axe_violations(browser) == []
    active(browser).send_keys(Keys.ESCAPE)
    assert wait_until(lambda: not menu.is_displayed())
    ActionChains(browser).context_click(first.find_element("xpath", ".//header")).perform()
    assert wait_until(menu.is_displayed) and active(browser).text == "Reply"
    active(browser).send_keys(Keys.ESCAPE)


def test_the_no_script_links_name_that_message(thread):
    browser = thread["browser"]
    first, _ = open_menu_of_first(thread)
    message_id = first.get_attribute("data-message-id")
    links = first.find_elements("xpath", ".//div[@role='group' and starts-with(@aria-label, 'Actions for the message from Dave Example')]//a")
    assert [link.get_attribute("textContent") for link in links] == ["Reply", "Reply all", "Forward"]
    assert all(f"message={message_id}" in link.get_attribute("href") for link in links)
    assert not links[0].is_displayed(), "the menu replaces them when the script runs"


def test_reply_to_an_earlier_message_quotes_and_threads_under_it(thread):
    from selenium.webdriver.common.keys import Keys
    browser = thread["browser"]
    stamp = thread["stamp"]
    first, button = open_menu_of_first(thread)
    button.send_keys(Keys.ENTER)
    assert wait_until(lambda: active(browser).text == "Reply")
    active(browser).send_keys(Keys.ENTER)
    body = by_xpath(browser, "//form[@aria-labelledby='composer-title']//textarea[@id='compose-body']", timeout=15)
    text = body.get_attribute("value")
    assert f"> Message 0 of {stamp}." in text and f"Message 2 of {stamp}" not in text, text
    active(browser).send_keys("About the first one.")
    send = by_xpath(browser, "//form[@aria-labelledby='composer-title']//button[normalize-space()='Send']")
    assert wait_until(lambda: send.get_attribute("disabled") is None)
    send.send_keys(Keys.ENTER)
    by_xpath(browser, "//div[@id='toasts']//*[contains(., 'Message sent')]", timeout=30)
    imap = imap_for(thread["servers"], ssl.create_default_context(cafile=thread["servers"]["TERN_TEST_CA"]), "dave")
    try:
        deadline, uids = time.monotonic() + 30, []
        while not uids and time.monotonic() < deadline:
            imap.select("INBOX")
            uids = imap.uid("SEARCH", None, "SUBJECT", f'"Re: Thread {stamp}"', "BODY", '"About the first one"')[1][0].split()
            time.sleep(0.5)
        assert uids, "delivered"
        copy = email.message_from_bytes(imap.uid("FETCH", uids[-1], "(BODY.PEEK[])")[1][0][1], policy=policy.default)
    finally:
        imap.logout()
    assert copy["In-Reply-To"] == thread["root"], "threaded under the first message, not the latest"
