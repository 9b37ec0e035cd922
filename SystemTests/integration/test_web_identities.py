"""Settings → Identities and signatures and the composer's From picker in Chromium (issue 35), by role and accessible
name: bob adds the alias the test Postfix delivers to his mailbox, with a name and a signature, and changes it; a reply
to mail sent to the alias opens from the alias with the signature above the quote, the picker lists both identities and
swaps the signature; the reply sent reaches dave from the alias. axe-core finds nothing on Settings or the composer."""
import email
import email.policy
import os
import ssl
import subprocess
import uuid

import pytest
from selenium.common.exceptions import StaleElementReferenceException

from support.accounts import add_account
from support.browser import axe_violations, by_xpath, chromium, open_thread_by_name
from support.imap import imap_for, uids_with_subject
from support.messages import raw_message
from support.servers import free_port, user_address
from support.tern import TERN, json_of, sync
from support.waiting import wait_for, wait_until
from support.web import browser_sign_in, start_serve

USER, CORRESPONDENT = "bob", "dave"
FROM_PICKER = "//select[@id=//label[normalize-space()='From']/@for]"


def labelled(name, element="*"):
    """The form control whose label reads `name` (its accessible name)."""
    return f"//{element}[@id=//label[normalize-space()='{name}']/@for]"


def button(name):
    return f"//button[normalize-space()='{name}' or @aria-label='{name}']"


@pytest.fixture(scope="module")
def app(servers, tmp_path_factory):
    alias = servers.get("TERN_TEST_ALIAS")
    if not alias or servers.get("TERN_TEST_ALIAS_TARGET") != USER:
        pytest.skip("the test servers were started without the alias (restart them with scripts/mailservers)")
    home = tmp_path_factory.mktemp("identities-home")
    add_account(home, servers, USER)
    subprocess.run([str(TERN), "settings", "set", "undo-send-delay", "0"], env=dict(os.environ, TERN_HOME=str(home)), check=True)
    stamp = uuid.uuid4().hex[:10]
    bob = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    try:
        bob.append("INBOX", "", None, raw_message(alias, f"Order {stamp}", "Ten boxes, please.",
                                                  sender=f"Dave <{user_address(servers, CORRESPONDENT)}>", minutes_ago=5))
    finally:
        bob.logout()
    sync(home, USER)
    port = free_port()
    server = start_serve(home, port)
    driver = chromium()
    yield {"base": browser_sign_in(driver, port), "stamp": stamp, "servers": servers, "browser": driver, "alias": alias,
           "home": home}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)


def gone(element):
    """Whether `element`'s page was replaced (a form's answer loaded)."""
    try:
        element.tag_name
        return False
    except StaleElementReferenceException:
        return True


def test_settings_add_and_change_an_identity(app):
    browser, alias = app["browser"], app["alias"]
    browser.get(f"{app['base']}/settings")
    by_xpath(browser, "//h2[normalize-space()='Identities and signatures']")
    by_xpath(browser, f"//h4[normalize-space()='{user_address(app['servers'], USER)} (default)']")
    assert axe_violations(browser) == []

    by_xpath(browser, labelled(f"Address to add to {USER}", "input")).send_keys(alias)
    by_xpath(browser, labelled(f"Display name of the new address of {USER}", "input")).send_keys("Bob (Sales)")
    by_xpath(browser, labelled(f"Signature of the new address of {USER}", "textarea")).send_keys("Bob\nSales")
    by_xpath(browser, button(f"Add address to {USER}")).click()
    by_xpath(browser, "//p[@role='status'][normalize-space()='Settings saved.']")
    signature = by_xpath(browser, labelled(f"Signature for {alias}", "textarea"))
    assert signature.get_attribute("value") == "Bob\nSales"
    assert by_xpath(browser, labelled(f"Display name for {alias}", "input")).get_attribute("value") == "Bob (Sales)"

    signature.clear()
    signature.send_keys("Bob Example\nSales team")
    page = browser.find_element("tag name", "html")
    by_xpath(browser, button(f"Save {alias}")).click()
    # The page before the save says "Settings saved." too (from the add): wait for the page that answers the save.
    assert wait_until(lambda: gone(page)), "the save answers with a new page"
    by_xpath(browser, "//p[@role='status'][normalize-space()='Settings saved.']")
    assert by_xpath(browser, labelled(f"Signature for {alias}", "textarea")).get_attribute("value") == "Bob Example\nSales team"
    # The account's own address has no Remove; the alias has.
    assert browser.find_elements("xpath", button(f"Remove {user_address(app['servers'], USER)}")) == []
    by_xpath(browser, button(f"Remove {alias}"))
    assert axe_violations(browser) == []

    listed = json_of(app["home"], "identity", "list", USER)
    assert [(i["email"], i["signature"]) for i in listed] == [(user_address(app["servers"], USER), None), (alias, "Bob Example\nSales team")]

    # A refusal is said on the page: the address is there already.
    by_xpath(browser, labelled(f"Address to add to {USER}", "input")).send_keys(alias.upper())
    by_xpath(browser, button(f"Add address to {USER}")).click()
    by_xpath(browser, "//p[@role='status'][contains(., 'already exists')]")


def picker(browser):
    from selenium.webdriver.support.ui import Select
    return Select(by_xpath(browser, FROM_PICKER))


def test_a_reply_opens_from_the_alias_and_the_picker_lists_identities(app):
    browser, alias, servers = app["browser"], app["alias"], app["servers"]
    if not any(i["email"] == alias for i in json_of(app["home"], "identity", "list", USER)):
        json_of(app["home"], "identity", "add", USER, "--email", alias, "--name", "Bob (Sales)", "--signature", "Bob Example\nSales team")
    subject = f"Order {app['stamp']}"
    open_thread_by_name(browser, app, subject)
    by_xpath(browser, "//div[@role='toolbar']//a[normalize-space()='Reply']").click()
    by_xpath(browser, "//form[@aria-labelledby='composer-title']")
    choice = picker(browser)
    options = [option.text for option in choice.options]
    assert len(options) == 2 and any(user_address(servers, USER) in text for text in options), options
    assert alias in choice.first_selected_option.text
    body = by_xpath(browser, labelled("Message", "textarea"))
    text = body.get_attribute("value")
    assert "-- \nBob Example\nSales team\n" in text and text.index("-- \n") < text.index("wrote:")
    assert axe_violations(browser) == []

    # The account's own address has no signature: choosing it takes the alias's away; back again puts it back.
    choice.select_by_index([i for i, o in enumerate(choice.options) if alias not in o.text][0])
    assert wait_until(lambda: "-- \n" not in body.get_attribute("value"))
    choice = picker(browser)
    choice.select_by_index([i for i, o in enumerate(choice.options) if alias in o.text][0])
    assert wait_until(lambda: "-- \nBob Example\nSales team" in body.get_attribute("value"))

    from selenium.webdriver.common.keys import Keys
    body.send_keys(Keys.CONTROL, Keys.HOME)
    body.send_keys("Shipped today.")
    send = by_xpath(browser, "//form[@aria-labelledby='composer-title']//button[normalize-space()='Send']")
    assert wait_until(lambda: send.get_attribute("disabled") is None)
    send.click()
    by_xpath(browser, "//div[@id='toasts']//*[contains(., 'Message sent')]", timeout=30)

    dave = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), CORRESPONDENT)
    try:
        [uid] = wait_for(lambda: uids_with_subject(dave, "INBOX", f"Re: {subject}"), timeout=30)
        raw = dave.uid("FETCH", uid, "(BODY.PEEK[])")[1][0][1]
    finally:
        dave.logout()
    copy = email.message_from_bytes(raw, policy=email.policy.default)
    assert copy["From"].addresses[0].addr_spec == alias
    lines = copy.get_body(("plain",)).get_content().splitlines()
    separator = lines.index("-- ")
    assert lines[separator + 1:separator + 3] == ["Bob Example", "Sales team"]
    assert separator < next(i for i, line in enumerate(lines) if line.endswith("wrote:"))
    assert "Shipped today." in "\n".join(lines[:separator])
