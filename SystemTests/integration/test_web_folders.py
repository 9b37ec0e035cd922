"""Issue 36 Folders in Chromium, by role and accessible name: "Move to…" (its button and `v`) and "Label as…" (`l`) open
a dialog whose folder list narrows as the person types, Enter takes the first folder shown, the toast offers Undo, and
the second IMAP client sees the move or the copy once the window has passed; a conversation dragged onto a folder is
moved; New folder, Rename folder and Delete folder show at once and reach the server when the undo window has passed,
and the toast's Undo keeps each from it; axe-core finds nothing with each dialog or toast open."""
import os
import ssl
import subprocess
import time
import uuid
from urllib.parse import parse_qs, urlparse

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.keys import Keys

from support.accounts import ACCEPTANCE_USER, add_account
from support.browser import axe_violations, by_xpath, chromium, open_thread_by_name
from support.imap import imap_for, uids_with_message_id
from support.messages import plant_thread, thread_id_of
from support.servers import free_port
from support.tern import TERN, sync
from support.waiting import wait_for, wait_until
from support.web import browser_sign_in, start_serve

USER = ACCEPTANCE_USER
DIALOG = "//dialog[@open and @aria-labelledby='pick-folder-title']"


@pytest.fixture(scope="module")
def site(servers, tmp_path_factory):
    home = tmp_path_factory.mktemp("web-folders-home")
    add_account(home, servers, USER)
    # A short undo window, so the engine's push reaches the server within the test's wait.
    subprocess.run([str(TERN), "settings", "set", "undo-action-window", "2"], env=dict(os.environ, TERN_HOME=str(home)), check=True)
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    port = free_port()
    server = start_serve(home, port)  # with its engine: changes are pushed when their window ends
    driver = chromium()
    yield {"base": browser_sign_in(driver, port), "browser": driver, "imap": imap, "home": home, "servers": servers}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)
    imap.logout()


def click(browser, xpath):
    """Clicks what `xpath` finds, again when the live refresh redrew it in between."""
    def clicked():
        try:
            by_xpath(browser, xpath).click()
            return True
        except StaleElementReferenceException:
            return False
    assert wait_until(clicked)


def planted(site):
    stamp, root = plant_thread(site["servers"], site["imap"], 1, to=USER)
    sync(site["home"], USER)
    return stamp, root


def choices(browser):
    return [b.text for b in browser.find_elements("xpath", f"{DIALOG}//ul[@aria-label='Folders']/li[not(@hidden)]/button")]


def test_move_to_narrows_as_one_types_and_moves_on_the_server(site):
    browser, imap = site["browser"], site["imap"]
    stamp, root = planted(site)
    open_thread_by_name(browser, site, f"Thread {stamp}")
    by_xpath(browser, "//div[@role='toolbar']//button[normalize-space()='Move to…']").click()
    by_xpath(browser, f"{DIALOG}//h2[normalize-space()='Move to']")
    box = by_xpath(browser, f"{DIALOG}//input[@id=//label[normalize-space()='Folder name']/@for]")
    assert "Receipts" in choices(browser) and "[Gmail]/Trash" in choices(browser)
    assert axe_violations(browser) == []
    box.send_keys("recei")
    assert wait_until(lambda: choices(browser) == ["Receipts"])
    box.send_keys(Keys.ENTER)
    toast = by_xpath(browser, "//*[@id='toasts']//*[contains(., 'Conversation moved to Receipts.')]")
    assert toast.find_elements("xpath", ".//button[normalize-space()='Undo']")
    assert wait_for(lambda: uids_with_message_id(imap, "Receipts", root), timeout=30)
    assert uids_with_message_id(imap, "INBOX", root) == []


def test_v_opens_the_dialog_escape_closes_it_and_undo_keeps_it_in_the_inbox(site):
    browser, imap = site["browser"], site["imap"]
    stamp, root = planted(site)
    open_thread_by_name(browser, site, f"Thread {stamp}")
    browser.find_element("tag name", "body").send_keys("v")
    by_xpath(browser, DIALOG)
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert wait_until(lambda: not browser.find_elements("xpath", DIALOG))
    browser.find_element("tag name", "body").send_keys("v")
    by_xpath(browser, DIALOG)
    by_xpath(browser, f"{DIALOG}//button[normalize-space()='Receipts']").click()
    by_xpath(browser, "//*[@id='toasts']//button[normalize-space()='Undo']").click()
    by_xpath(browser, "//*[@id='toasts']//*[contains(., 'restored')]")
    time.sleep(4)  # past the window: nothing was left to push
    assert len(uids_with_message_id(imap, "INBOX", root)) == 1
    assert uids_with_message_id(imap, "Receipts", root) == []


def test_label_as_copies_and_the_message_stays(site):
    browser, imap = site["browser"], site["imap"]
    stamp, root = planted(site)
    open_thread_by_name(browser, site, f"Thread {stamp}")
    browser.find_element("tag name", "body").send_keys("l")
    by_xpath(browser, f"{DIALOG}//h2[normalize-space()='Label as']")
    assert axe_violations(browser) == []
    by_xpath(browser, f"{DIALOG}//button[normalize-space()='Receipts']").click()
    by_xpath(browser, "//*[@id='toasts']//*[contains(., 'Conversation labelled Receipts.')]")
    assert wait_for(lambda: uids_with_message_id(imap, "Receipts", root), timeout=30)
    assert len(uids_with_message_id(imap, "INBOX", root)) == 1


DROP = """
const [row, folder] = arguments;
const data = new DataTransfer();
row.dispatchEvent(new DragEvent("dragstart", { bubbles: true, dataTransfer: data }));
folder.dispatchEvent(new DragEvent("dragover", { bubbles: true, cancelable: true, dataTransfer: data }));
folder.dispatchEvent(new DragEvent("drop", { bubbles: true, cancelable: true, dataTransfer: data }));
"""


def test_a_conversation_dropped_on_a_folder_is_moved_there(site):
    browser, imap = site["browser"], site["imap"]
    stamp, root = planted(site)
    browser.get(f"{site['base']}/mail")
    row = by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Thread {stamp}')]")
    folder = by_xpath(browser, "//nav[@aria-label='Folders']//a[@data-folder-path='Receipts']")
    browser.execute_script(DROP, row, folder)
    by_xpath(browser, "//*[@id='toasts']//*[contains(., 'moved to Receipts.')]")
    assert wait_for(lambda: uids_with_message_id(imap, "Receipts", root), timeout=30)
    assert uids_with_message_id(imap, "INBOX", root) == []


def test_new_folder_creates_it_on_the_server(site):
    browser, imap = site["browser"], site["imap"]
    name = f"Web {uuid.uuid4().hex[:8]}"
    browser.get(f"{site['base']}/mail")
    by_xpath(browser, f"//nav[@aria-label='Folders']//button[normalize-space()='New folder in {USER}']").click()
    by_xpath(browser, "//dialog[@open]//h2[normalize-space()='New folder']")
    assert axe_violations(browser) == []
    box = by_xpath(browser, "//dialog[@open]//input[@id=//label[normalize-space()='Folder name']/@for]")
    box.send_keys(name, Keys.ENTER)
    by_xpath(browser, f"//*[@id='toasts']//*[contains(., 'Folder {name} created.')]")
    by_xpath(browser, f"//nav[@aria-label='Folders']//a[@data-folder-path='{name}']")
    # Made on the server when the undo window (2 s here) has passed.
    assert wait_for(lambda: any(name in line.decode() for line in imap.list()[1]), timeout=30)


def test_b_opens_snooze_whose_choice_moves_it_to_snoozed_listed_with_its_wake_time(site):
    browser, imap = site["browser"], site["imap"]
    stamp, root = planted(site)
    open_thread_by_name(browser, site, f"Thread {stamp}")
    browser.find_element("tag name", "body").send_keys("b")
    snooze = "//dialog[@open and @aria-labelledby='snooze-title']"
    by_xpath(browser, f"{snooze}//h2[normalize-space()='Snooze until']")
    choices = [b.text for b in browser.find_elements("xpath", f"{snooze}//ul[@aria-label='Snooze choices']//button")]
    assert [c.split(" (")[0] for c in choices] == ["Later today", "Tomorrow", "Next week"]
    assert by_xpath(browser, f"{snooze}//input[@id=//label[normalize-space()='Date and time']/@for]").get_attribute("type") == "datetime-local"
    assert axe_violations(browser) == []
    by_xpath(browser, f"{snooze}//button[normalize-space()='Tomorrow (08:00)']").click()
    by_xpath(browser, "//*[@id='toasts']//*[contains(., 'Snoozed until')]")
    assert wait_for(lambda: uids_with_message_id(imap, "Snoozed", root), timeout=30)
    assert uids_with_message_id(imap, "INBOX", root) == []
    [uid] = uids_with_message_id(imap, "Snoozed", root)
    assert "$SnoozedUntil" in imap.uid("FETCH", uid, "(FLAGS)")[1][0].decode()
    # Listed under Snoozed with the time it comes back.
    sync(site["home"], USER)
    browser.get(f"{site['base']}/mail?account={USER}&folder=Snoozed")
    row = by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Thread {stamp}')]")
    assert "Snoozed until" in row.get_attribute("aria-label") and "Snoozed until" in row.text
    assert axe_violations(browser) == []


def test_the_persons_own_folder_is_renamed_and_deleted_from_its_list(site):
    browser, imap = site["browser"], site["imap"]
    name, renamed = f"Mine {uuid.uuid4().hex[:6]}", f"Kept {uuid.uuid4().hex[:6]}"
    subprocess.run([str(TERN), "folder", "create", name], env=dict(os.environ, TERN_HOME=str(site["home"])), check=True)
    browser.get(f"{site['base']}/mail?account={USER}&folder={name.replace(' ', '%20')}")
    click(browser, "//div[@class='list-header']//button[normalize-space()='Rename folder']")
    box = by_xpath(browser, "//dialog[@open]//input[@id=//label[normalize-space()='Folder name']/@for]")
    assert axe_violations(browser) == []
    box.clear()
    box.send_keys(renamed, Keys.ENTER)
    by_xpath(browser, f"//*[@id='toasts']//*[contains(., 'Folder renamed to {renamed}.')]")

    def renamed_on_server():
        listed = [line.decode() for line in imap.list()[1]]
        return any(renamed in line for line in listed) and not any(name in line for line in listed)
    assert wait_for(renamed_on_server, timeout=30)
    assert wait_until(lambda: parse_qs(urlparse(browser.current_url).query).get("folder") == [renamed])
    click(browser, "//div[@class='list-header']//button[normalize-space()='Delete folder']")
    by_xpath(browser, "//dialog[@open]//p[contains(., 'It is empty.')]")
    by_xpath(browser, "//dialog[@open]//button[normalize-space()='Delete folder']").click()
    by_xpath(browser, f"//*[@id='toasts']//*[contains(., 'Folder {renamed} deleted.')]")
    assert wait_for(lambda: not any(renamed in line.decode() for line in imap.list()[1]), timeout=30)
    # The Inbox offers neither.
    browser.get(f"{site['base']}/mail?account={USER}&folder=INBOX")
    by_xpath(browser, "//div[@class='list-header']")
    assert not browser.find_elements("xpath", "//button[normalize-space()='Rename folder' or normalize-space()='Delete folder']")


def undo_in_toast(browser, text):
    """The toast saying `text`, checked by axe-core, and its Undo button, found by role and name, clicked."""
    toast = "//*[@id='toasts']//*[contains(@class, 'toast')][contains(., \"%s\")]" % text
    by_xpath(browser, toast)
    assert axe_violations(browser) == []
    by_xpath(browser, f"{toast}//button[normalize-space()='Undo']").click()
    by_xpath(browser, "//*[@id='toasts']//*[contains(., 'Folder change undone.')]")


def test_undo_in_the_toast_keeps_a_folder_change_from_the_server(site):
    browser, imap = site["browser"], site["imap"]
    stamp = uuid.uuid4().hex[:6]
    name, fresh, renamed = f"Stay {stamp}", f"Never {stamp}", f"Other {stamp}"
    subprocess.run([str(TERN), "folder", "create", name, "--no-undo"], env=dict(os.environ, TERN_HOME=str(site["home"])), check=True)
    # A longer window than the module's 2 s, so that the toast's Undo is certainly in time.
    subprocess.run([str(TERN), "settings", "set", "undo-action-window", "15"], env=dict(os.environ, TERN_HOME=str(site["home"])), check=True)
    try:
        browser.get(f"{site['base']}/mail")
        by_xpath(browser, f"//nav[@aria-label='Folders']//button[normalize-space()='New folder in {USER}']").click()
        by_xpath(browser, "//dialog[@open]//input[@id=//label[normalize-space()='Folder name']/@for]").send_keys(fresh, Keys.ENTER)
        by_xpath(browser, f"//nav[@aria-label='Folders']//a[@data-folder-path='{fresh}']")
        undo_in_toast(browser, f"Folder {fresh} created.")
        assert wait_until(lambda: not browser.find_elements("xpath", f"//nav[@aria-label='Folders']//a[@data-folder-path='{fresh}']"))

        browser.get(f"{site['base']}/mail?account={USER}&folder={name.replace(' ', '%20')}")
        click(browser, "//div[@class='list-header']//button[normalize-space()='Rename folder']")
        box = by_xpath(browser, "//dialog[@open]//input[@id=//label[normalize-space()='Folder name']/@for]")
        box.clear()
        box.send_keys(renamed, Keys.ENTER)
        by_xpath(browser, f"//nav[@aria-label='Folders']//a[@data-folder-path='{renamed}']")
        undo_in_toast(browser, f"Folder renamed to {renamed}.")
        assert wait_until(lambda: parse_qs(urlparse(browser.current_url).query).get("folder") == [name])
        by_xpath(browser, f"//nav[@aria-label='Folders']//a[@data-folder-path='{name}']")

        click(browser, "//div[@class='list-header']//button[normalize-space()='Delete folder']")
        by_xpath(browser, "//dialog[@open]//button[normalize-space()='Delete folder']").click()
        assert wait_until(lambda: not browser.find_elements("xpath", f"//nav[@aria-label='Folders']//a[@data-folder-path='{name}']"))
        undo_in_toast(browser, f"Folder {name} deleted.")
        by_xpath(browser, f"//nav[@aria-label='Folders']//a[@data-folder-path='{name}']")
    finally:
        subprocess.run([str(TERN), "settings", "set", "undo-action-window", "2"], env=dict(os.environ, TERN_HOME=str(site["home"])), check=True)
    time.sleep(17)  # past the 15 s window: nothing of the three reached the server
    listed = [line.decode() for line in imap.list()[1]]
    assert any(name in line for line in listed)
    assert not any(fresh in line or renamed in line for line in listed)


def test_move_to_and_snooze_work_without_script(site):
    """Progressive enhancement: with the pages' scripts off, Move to… and Snooze are forms whose answer a page of their
    own asks for (by role and name), and the change reaches the server as with the dialogs."""
    imap = site["imap"]
    driver = chromium(javascript=False)
    try:
        base = browser_sign_in(driver, urlparse(site["base"]).port)
        toolbar = "//div[@role='toolbar' and @aria-label='Conversation actions']"

        stamp, root = planted(site)
        driver.get(f"{base}/mail?thread={thread_id_of(site['home'], stamp)}")
        by_xpath(driver, f"{toolbar}//button[normalize-space()='Move to…']").click()
        by_xpath(driver, "//h1[normalize-space()='Move to…']")
        choices = "//ul[@aria-labelledby='choice-title']"
        by_xpath(driver, f"{choices}//button[normalize-space()='Receipts']").click()
        assert wait_for(lambda: uids_with_message_id(imap, "Receipts", root), timeout=30)
        assert uids_with_message_id(imap, "INBOX", root) == []

        stamp, root = planted(site)
        driver.get(f"{base}/mail?thread={thread_id_of(site['home'], stamp)}")
        by_xpath(driver, f"{toolbar}//button[normalize-space()='Snooze']").click()
        by_xpath(driver, "//h1[normalize-space()='Snooze until']")
        assert by_xpath(driver, "//input[@id=//label[normalize-space()='Date and time']/@for]").get_attribute("type") == "datetime-local"
        by_xpath(driver, f"{choices}//button[normalize-space()='Tomorrow (08:00)']").click()
        assert wait_for(lambda: uids_with_message_id(imap, "Snoozed", root), timeout=30)
        assert uids_with_message_id(imap, "INBOX", root) == []
    finally:
        driver.quit()


def test_the_choice_pages_have_no_axe_violations(site):
    """The same pages, checked by axe-core in the scripted session (axe needs script to run)."""
    browser = site["browser"]
    stamp, root = planted(site)
    thread = thread_id_of(site["home"], stamp)
    browser.get(f"{site['base']}/mail?thread={thread}")
    for action, title in (("move", "Move to…"), ("snooze", "Snooze until")):
        # The toolbar's own form, sent as the browser would without script.
        browser.execute_script(
            "const form = document.querySelector(`form[data-action='${arguments[0]}']`); HTMLFormElement.prototype.submit.call(form);",
            action)
        by_xpath(browser, f"//h1[normalize-space()='{title}']")
        assert axe_violations(browser) == []
        browser.back()
