"""Issue 35: "Sign in with Microsoft" in the web app, in Chromium by role and accessible name, against the local test
authorization server (scripts/oauth_test_server.py, in its consent-page mode) and the test Dovecot (its oauth2 passdb
introspects the token there) and Postfix: from an empty $TERN_HOME, an account whose servers take Microsoft's sign-in,
the client id pasted once, the provider's consent page, the way back through the app's own `/oauth/callback` (the
authorization code exchanged with the PKCE verifier), the Inbox filling, the client id kept for every later account and
shown in Settings; a refused consent and a forged or replayed state each a clear error that adds nothing. axe-core finds
no violation on any screen of the flow. Nothing real is contacted: TERN_OAUTH_* point every provider at the test server."""
import json
import os
import subprocess
import urllib.request
import uuid

import pytest
from selenium.webdriver.support.select import Select

from support.browser import axe_violations, by_xpath, chromium, field, fill
from support.imap import plant_messages
from support.servers import free_port, user_address
from support.tern import json_of
from support.waiting import wait_until
from support.web import browser_sign_in, http_request, sign_in, start_serve

CLIENT_ID = "tern-test-client"


def oauth_admin(servers, path):
    request = urllib.request.Request(f"{servers['TERN_TEST_OAUTH_URL']}{path}", data=b"", method="POST")
    return json.load(urllib.request.urlopen(request, timeout=10))


def oauth_stats(servers):
    return json.load(urllib.request.urlopen(f"{servers['TERN_TEST_OAUTH_URL']}/admin/stats", timeout=10))


@pytest.fixture()
def site(servers, tmp_path):
    """`tern serve` on an empty home with every OAuth provider pointed at the test server, which shows its consent page."""
    home = tmp_path / "home"
    home.mkdir()
    base = servers["TERN_TEST_OAUTH_URL"]
    env = {"TERN_TOKEN_STORE": "file", "TERN_OAUTH_AUTHORIZATION_URL": f"{base}/authorize", "TERN_OAUTH_TOKEN_URL": f"{base}/token"}
    oauth_admin(servers, "/admin/consent?mode=page")
    port = free_port()
    server = start_serve(home, port, env=env)
    driver = chromium(page_load_timeout=20)
    try:
        yield {"home": home, "port": port, "base": browser_sign_in(driver, port), "browser": driver, "servers": servers}
    finally:
        oauth_admin(servers, "/admin/consent?mode=auto")
        driver.quit()
        server.terminate()
        server.wait(timeout=10)


def fill_microsoft_servers(browser, servers, name, user):
    """The form as a person fills it for a Microsoft 365 tenant whose servers are the test's: no password."""
    fill(browser, "Account name", name)
    fill(browser, "Email address", user_address(servers, user))
    details = browser.find_element("xpath", "//details[summary[normalize-space()='Edit server settings']]")
    if details.get_attribute("open") is None:
        details.find_element("xpath", "./summary").click()
    by_xpath(browser, "//input[@id='account-imap-host']").send_keys("127.0.0.1")
    by_xpath(browser, "//input[@id='account-imap-port']").send_keys(servers["TERN_IMAPS_PORT"])
    by_xpath(browser, "//input[@id='account-smtp-host']").send_keys("127.0.0.1")
    by_xpath(browser, "//input[@id='account-smtp-port']").send_keys(servers["TERN_SUBMISSION_PORT"])
    Select(by_xpath(browser, "//select[@id='account-smtp-security']")).select_by_visible_text("STARTTLS")
    Select(field(browser, "Sign in with")).select_by_visible_text("Microsoft sign-in (OAuth)")
    fill(browser, "Extra certificate authority (PEM file)", servers["TERN_TEST_CA"])


def continue_setup(browser):
    browser.find_element("xpath", "//button[normalize-space()='Continue']").click()


def sign_in_button(browser, timeout=30):
    return by_xpath(browser, "//section[@id='setup-oauth-microsoft' and not(@hidden)]//button[normalize-space()='Sign in with Microsoft']",
                    timeout=timeout)


def consent_page(browser):
    """The test provider's page, after Tern's page that leads there."""
    by_xpath(browser, "//h1[normalize-space()='Test sign-in']", timeout=20)
    assert axe_violations(browser) == []


def test_sign_in_with_microsoft_adds_the_account_and_fills_the_inbox(site):
    browser, servers = site["browser"], site["servers"]
    stamp = uuid.uuid4().hex[:10]
    plant_messages(servers, "alice", 5, f"Signed in {stamp}")
    before = oauth_stats(servers)
    by_xpath(browser, "//h2[normalize-space()='Add account']")
    assert axe_violations(browser) == []
    fill_microsoft_servers(browser, servers, "office", "alice")
    continue_setup(browser)

    # The servers take Microsoft's sign-in: its section, with how to make a client id and the field to paste it.
    button = sign_in_button(browser)
    section = button.find_element("xpath", "./ancestor::section[1]")
    assert "Microsoft Entra" in section.text and "http://127.0.0.1/oauth/callback" in section.text
    assert "sign in with Microsoft" in browser.find_element("xpath", "//p[@role='alert']").text
    assert axe_violations(browser) == []
    fill(browser, "Microsoft client id", CLIENT_ID)
    button.click()

    consent_page(browser)
    assert "alice" in browser.find_element("xpath", "//main").text
    browser.find_element("xpath", "//button[normalize-space()='Allow']").click()

    # Back at the app's own address, the session takes over and the setup's steps run: the Inbox.
    assert wait_until(lambda: browser.current_url.endswith("/mail"), timeout=60), browser.find_element("xpath", "//body").text[:2000]
    rows = lambda: browser.find_elements("xpath", f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Signed in {stamp}')]")
    assert wait_until(lambda: len(rows()) == 5, timeout=60), browser.find_element("xpath", "//main").text[:3000]
    assert axe_violations(browser) == []

    # The code was exchanged once, with the verifier; the tokens are kept as the CLI keeps them, not in the store.
    after = oauth_stats(servers)
    assert after["authorization_code"] == before["authorization_code"] + 1
    assert after["pkce_refused"] == before["pkce_refused"]
    accounts = json_of(site["home"], "account", "list", "--json")
    assert [(a["name"], a["auth"]) for a in accounts] == [("office", "oauth2")]
    token_file = site["home"] / "secrets" / f"{accounts[0]['id']}.json"
    assert token_file.stat().st_mode & 0o777 == 0o600
    tokens = json.loads(token_file.read_text())
    assert tokens["refreshToken"] and tokens["accessToken"].encode() not in (site["home"] / "tern.sqlite").read_bytes()

    # The client id is stored once for Microsoft: the next account's sign-in asks for none, and Settings shows it.
    browser.get(f"{site['base']}/accounts/new")
    by_xpath(browser, "//h1[normalize-space()='Add account']")
    assert not browser.find_elements("xpath", "//label[normalize-space()='Microsoft client id']")
    browser.get(f"{site['base']}/settings")
    assert by_xpath(browser, "//h2[normalize-space()='Sign-in apps']")
    assert field(browser, "Microsoft client id").get_attribute("value") == CLIENT_ID
    assert axe_violations(browser) == []


def test_a_refused_consent_and_a_forged_or_replayed_answer_add_nothing(site):
    browser, servers, port = site["browser"], site["servers"], site["port"]
    # The client id saved in Settings serves the sign-in: the Add account screen then shows only the button.
    browser.get(f"{site['base']}/settings")
    fill(browser, "Microsoft client id", CLIENT_ID)
    old = browser.find_element("xpath", "//button[normalize-space()='Save sign-in apps']")
    old.click()
    assert wait_until(lambda: "Settings saved." in browser.find_element("xpath", "//main").text, timeout=10)

    browser.get(f"{site['base']}/accounts/new")
    by_xpath(browser, "//h1[normalize-space()='Add account']")
    fill_microsoft_servers(browser, servers, "office", "alice")
    continue_setup(browser)
    button = sign_in_button(browser)
    assert not browser.find_elements("xpath", "//label[normalize-space()='Microsoft client id']")
    button.click()
    consent_page(browser)
    browser.find_element("xpath", "//button[normalize-space()='Deny']").click()

    # Refused: said in words, the form kept, nothing added.
    by_xpath(browser, "//p[@role='alert' and contains(normalize-space(), 'did not give Tern access')]", timeout=30)
    finish = browser.current_url
    assert "/accounts/oauth/finish?state=" in finish
    assert field(browser, "Account name").get_attribute("value") == "office"
    assert axe_violations(browser) == []
    assert json_of(site["home"], "account", "list", "--json") == []

    # The same answer again (its state used), and one with a state Tern never issued: refused, nothing changed.
    state = finish.split("state=", 1)[1]
    for forged in (state, "forged-state"):
        browser.get(f"http://127.0.0.1:{port}/oauth/callback?code=stolen&state={forged}")
        text = by_xpath(browser, "//main").text
        assert "not for a sign-in Tern is waiting for" in text, text
        assert axe_violations(browser) == []
    assert json_of(site["home"], "account", "list", "--json") == []


def test_the_sign_in_routes_keep_the_session_and_csrf_rules(site):
    """Starting a sign-in needs the session and the CSRF token like any change; only the callback stands outside the
    session, and it does nothing for a state it did not issue."""
    port = site["port"]
    web = sign_in(port)
    body = "sign-in-with=microsoft&name=x&email=a%40b.test"
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    no_csrf, _ = web.request("POST", "/accounts/oauth/start", headers=headers, body=body)
    assert no_csrf.status == 403
    no_session, _ = http_request(port, "POST", web.path("/accounts/oauth/start"), headers=headers, body=body)
    assert no_session.status == 401
    cross_site, text = http_request(port, "GET", "/oauth/callback?code=x&state=y", headers={"Sec-Fetch-Site": "cross-site"})
    assert cross_site.status == 400 and "not for a sign-in Tern is waiting for" in text
