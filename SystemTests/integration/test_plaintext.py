"""Issue 35's "No encryption": only for servers the person typed, only once they confirmed the warning (the web form's
checkbox, `tern account add --insecure-plaintext`); then IMAP is spoken over plain TCP to the test Dovecot's port 143
(no STARTTLS). In Chromium by role and accessible name; axe-core finds no violation."""
from selenium.webdriver.support.ui import Select

from support.browser import axe_violations, by_xpath, field, fill
from support.servers import user_address
from support.tern import json_of, tern
from support.waiting import wait_until


def test_the_cli_connects_without_encryption_only_when_asked(servers, tmp_path):
    common = ["--email", user_address(servers, "bob"), "--imap", f"127.0.0.1:{servers['TERN_IMAP_PORT']}",
              "--smtp", f"127.0.0.1:{servers['TERN_SMTP_PORT']}", "--password-command", f"cat {servers['TERN_TEST_PASSWORD_FILE']}"]
    mixed = tern(tmp_path, "account", "add", "mixed", *common, "--insecure-plaintext", "--imap-starttls")
    assert mixed.returncode != 0 and "--insecure-plaintext" in mixed.stderr
    added = tern(tmp_path, "account", "add", "plain", *common, "--insecure-plaintext")
    assert added.returncode == 0, added.stderr
    assert "Without encryption, your password and your mail cross the network" in added.stderr
    [account] = json_of(tmp_path, "account", "list")
    assert account["imap"]["security"] == "none" and account["smtp"]["security"] == "none"
    check = tern(tmp_path, "imap-check", "plain")
    assert check.returncode == 0, check.stderr
    assert "INBOX" in check.stdout


def test_no_encryption_needs_the_warning_confirmed_on_the_add_account_screen(servers, empty_site):
    browser, home = empty_site["browser"], empty_site["home"]
    browser.get(f"{empty_site['base']}/accounts/new")
    by_xpath(browser, "//h1[normalize-space()='Add account']")
    fill(browser, "Account name", "plain")
    fill(browser, "Email address", user_address(servers, "bob"))
    fill(browser, "Password", servers["TERN_TEST_PASSWORD"])
    browser.find_element("xpath", "//details/summary[normalize-space()='Edit server settings']").click()
    for role, port in (("imap", servers["TERN_IMAP_PORT"]), ("smtp", servers["TERN_SMTPS_PORT"])):
        browser.find_element("xpath", f"//input[@id='account-{role}-host']").send_keys("127.0.0.1")
        browser.find_element("xpath", f"//input[@id='account-{role}-port']").send_keys(port)
    Select(browser.find_element("xpath", "//select[@id='account-imap-security']")).select_by_visible_text("No encryption")
    fill(browser, "Extra certificate authority (PEM file)", servers["TERN_TEST_CA"])
    consent = field(browser, 'Allow "No encryption"')
    warning = browser.find_element("xpath", f"//*[@id='{consent.get_attribute('aria-describedby')}']").text
    assert "readable by anyone on the way" in warning
    assert axe_violations(browser) == []

    browser.find_element("xpath", "//button[normalize-space()='Continue']").click()
    alert = by_xpath(browser, "//p[@role='alert' and not(@hidden) and normalize-space()]", timeout=30).text
    assert "confirm the warning" in alert
    assert json_of(home, "account", "list") == []

    consent.click()
    browser.find_element("xpath", "//button[normalize-space()='Continue']").click()
    assert wait_until(lambda: browser.current_url.endswith("/mail"), timeout=30)
    [account] = json_of(home, "account", "list")
    assert account["imap"]["security"] == "none" and account["smtp"]["security"] == "tls"
