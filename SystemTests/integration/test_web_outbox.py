"""A failed send in the web app is no dead end (issue 34; CO01-S5, CO01-E2, SY07-7): the Outbox message says why it
failed and offers Retry sending (the same message queued again, never a second copy) and Discard (asked first in a
dialog), both found by role and name and usable from the keyboard; a page without script asks on a page of its own."""
import json
import os
import subprocess
import urllib.parse

import pytest

from support.accounts import add_account
from support.browser import axe_violations, by_xpath, chromium
from support.servers import free_port
from support.tern import TERN
from support.waiting import wait_until
from support.web import TOKEN, app_base, sign_in, start_serve

USER = "bob"


def outbox(home):
    result = subprocess.run([str(TERN), "outbox", "list", "--json"], env=dict(os.environ, TERN_HOME=str(home)),
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def refused_send(home, servers, subject):
    """A message Postfix refuses for good (an unknown recipient): failed at once, with the server's words."""
    result = subprocess.run([str(TERN), "send", "--to", f"nobody@{servers['TERN_TEST_DOMAIN']}", "--subject", subject, "--body", "x",
                             "--undo", "0", "--json"], env=dict(os.environ, TERN_HOME=str(home)), capture_output=True, text=True)
    outcome = json.loads(result.stdout)
    assert outcome["state"] == "failed" and "User unknown" in outcome["error"], outcome
    return outcome["emailId"]


@pytest.fixture()
def failed_app(servers, tmp_path):
    home = tmp_path / "home"
    add_account(home, servers, USER)
    first, second = refused_send(home, servers, "Refused first"), refused_send(home, servers, "Refused second")
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    driver = chromium(offline=True, console_log=True, page_load_timeout=15)
    driver.get(f"http://127.0.0.1:{port}/?token={TOKEN}")
    yield {"home": home, "port": port, "base": app_base(port), "browser": driver, "ids": (first, second)}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)


def open_in_outbox(browser, base, subject):
    browser.get(f"{base}/mail?view=outbox")
    by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, '{subject}')]").click()
    return by_xpath(browser, "//main//*[@role='alert'][.//p[starts-with(normalize-space(), \"Couldn't send:\")]]")


def test_a_failed_message_says_why_and_is_retried_once_or_discarded_after_asking(failed_app):
    browser, base, home = failed_app["browser"], failed_app["base"], failed_app["home"]
    alert = open_in_outbox(browser, base, "Refused first")
    assert "User unknown" in alert.text
    assert axe_violations(browser) == []
    # Retry sending: the same message is tried again (Postfix refuses it again); still one copy in the Outbox.
    alert.find_element("xpath", ".//button[normalize-space()='Retry sending']").click()
    assert wait_until(lambda: "User unknown" in browser.find_element("id", "toasts").text, 10), browser.find_element("id", "toasts").text
    assert [m["subject"] for m in outbox(home)].count("Refused first") == 1
    # Discard, by keyboard: a dialog asks first; Cancel keeps it.
    alert = open_in_outbox(browser, base, "Refused first")
    discard = alert.find_element("xpath", ".//button[normalize-space()='Discard']")
    discard.send_keys("\n")
    dialog = by_xpath(browser, "//dialog[@open][.//h2[starts-with(normalize-space(), 'Discard this message?')]]")
    assert browser.switch_to.active_element.text == "Cancel"
    assert axe_violations(browser) == []
    dialog.find_element("xpath", ".//button[normalize-space()='Cancel']").click()
    assert [m["subject"] for m in outbox(home)].count("Refused first") == 1
    discard = by_xpath(browser, "//main//*[@role='alert']//button[normalize-space()='Discard']")
    discard.click()
    by_xpath(browser, "//dialog[@open]//button[normalize-space()='Discard']").click()
    assert wait_until(lambda: "Message discarded." in browser.find_element("id", "toasts").text, 10)
    assert [m["subject"] for m in outbox(home)] == ["Refused second"]
    assert wait_until(lambda: not browser.find_elements(
        "xpath", "//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Refused first')]"), 10)


def test_without_script_discard_asks_on_a_page_of_its_own(failed_app):
    port, home = failed_app["port"], failed_app["home"]
    _, second = failed_app["ids"]
    session = sign_in(port)
    page = session.request("GET", "/settings")[1]
    csrf = page.split('name="csrf-token" content="')[1].split('"')[0]
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    response, asked = session.request("POST", "/outbox/discard", form,
                                      urllib.parse.urlencode({"csrf": csrf, "message": second, "return": "/mail?view=outbox"}))
    assert response.status == 200 and "<h1>Discard this message?</h1>" in asked
    assert [m["subject"] for m in outbox(home)] == ["Refused first", "Refused second"]
    response, _ = session.request("POST", "/outbox/discard", form, urllib.parse.urlencode(
        {"csrf": csrf, "message": second, "confirmed": "1", "return": "/mail?view=outbox"}))
    assert response.status == 303 and response.getheader("Location").startswith(session.app), response.getheader("Location")
    assert [m["subject"] for m in outbox(home)] == ["Refused first"]
