"""Issue 35's accounts in the web app, in Chromium by role and accessible name against the test Dovecot and Postfix:
from an empty $TERN_HOME, `tern serve` opens on "Add account"; an account added by address and password with its
settings from the test domain's well-known autoconfig document (mapped to the test's HTTPS server with
`TERN_DISCOVERY_RESOLVE`), the Inbox filling with the first sync's progress, a message sent; the online database asked
only with consent; an error per step (nothing found, a refused password, a server that cannot be reached, sending
refused) and the typed server settings; removing one of two accounts (asked first about its queued mail) leaving the
other whole, files and store rows. axe-core finds no violation on any screen of the flow."""
import http.client
import json
import os
import sqlite3
import subprocess
import threading
import uuid

import pytest

from support.accounts import NO_SMTP, add_account
from support.browser import axe_violations, by_xpath, chromium, field, fill
from support.discovery import DocumentServer, client_config, signed_certificate
from support.imap import arrived, plant_messages
from support.servers import free_port, user_address
from support.tern import TERN, json_of, sync
from support.waiting import wait_until
from support.web import browser_sign_in, sign_in, start_serve

WELL_KNOWN = "/.well-known/autoconfig/mail/config-v1.1.xml"


@pytest.fixture()
def documents(servers, tmp_path):
    certificate, key = signed_certificate(servers, tmp_path, ["tern.test", "autoconfig.tern.test"])
    server = DocumentServer(certificate, key)
    yield server
    server.close()


@pytest.fixture()
def site(servers, tmp_path, documents, dns):
    """`tern serve` on an empty home, the test domain's autoconfig hosts and the online database on the test's HTTPS
    server, DNS from the test's server; Chromium signed in."""
    home = tmp_path / "home"
    home.mkdir()
    env = {"TERN_DISCOVERY_RESOLVE": documents.resolve("autoconfig.tern.test", "tern.test"), "TERN_DNS_SERVER": dns.address,
           "TERN_ISPDB_URL": f"https://localhost:{documents.port}/v1.1/", "TERN_TOKEN_STORE": "file"}
    subprocess.run([str(TERN), "settings", "set", "undo-send-delay", "0"], env=dict(os.environ, TERN_HOME=str(home)), check=True)
    port = free_port()
    server = start_serve(home, port, env=env)
    driver = chromium(page_load_timeout=20)
    base = browser_sign_in(driver, port)
    yield {"home": home, "port": port, "base": base, "browser": driver, "servers": servers, "documents": documents}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)


def step_state(browser, name):
    """The state a step of the setup shows ("done", "failed"…), by its name in the live list."""
    item = browser.find_element("xpath", f"//ol[@aria-labelledby='setup-steps-title']/li[span[@class='step-name' and normalize-space()='{name}']]")
    return item.get_attribute("data-state")


def continue_setup(browser):
    browser.find_element("xpath", "//button[normalize-space()='Continue']").click()


def open_server_settings(browser):
    details = browser.find_element("xpath", "//details[summary[normalize-space()='Edit server settings']]")
    if details.get_attribute("open") is None:
        details.find_element("xpath", "./summary").click()


def alert_text(browser, timeout=30):
    by_xpath(browser, "//p[@role='alert' and not(@hidden) and normalize-space()]", timeout=timeout)
    return browser.find_element("xpath", "//p[@role='alert']").text


class EventLog:
    """The app's server-sent events, read on a session of their own while a test runs."""

    def __init__(self, port):
        web = sign_in(port)
        self.events = []
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.connection.request("GET", web.path("/events"), headers={"Cookie": web.cookie})
        self.response = self.connection.getresponse()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        name = None
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: ") and name:
                    self.events.append((name, json.loads(line[6:])))
                    name = None
        except (OSError, ValueError, AttributeError):
            pass  # the stream closed under the reader at the test's end

    def named(self, name):
        return [data for event, data in self.events if event == name]

    def close(self):
        self.connection.close()


def test_an_account_added_by_address_fills_the_inbox_with_progress_and_sends(site):
    browser, servers, documents = site["browser"], site["servers"], site["documents"]
    documents.documents[("tern.test", WELL_KNOWN)] = client_config(
        "127.0.0.1", servers["TERN_IMAPS_PORT"], "127.0.0.1", servers["TERN_SMTPS_PORT"])
    stamp = uuid.uuid4().hex[:10]
    plant_messages(servers, "alice", 40, f"Welcome {stamp}")
    # No account yet: the app opens on "Add account"; the online database is off until asked, and named.
    by_xpath(browser, "//h2[normalize-space()='Add account']")
    consent = field(browser, "Also ask the online database at localhost")
    assert not consent.is_selected()
    assert axe_violations(browser) == []
    events = EventLog(site["port"])
    try:
        fill(browser, "Account name", "home")
        fill(browser, "Email address", user_address(servers, "alice"))
        fill(browser, "Password", servers["TERN_TEST_PASSWORD"])
        open_server_settings(browser)
        fill(browser, "Extra certificate authority (PEM file)", servers["TERN_TEST_CA"])
        continue_setup(browser)
        # Done: the Inbox, filling as the first sync's batches land.
        by_xpath(browser, "//section[@id='list-pane']//h2[@id='list-title']", timeout=30)
        assert wait_until(lambda: browser.current_url.endswith("/mail"), timeout=30)
        rows = lambda: browser.find_elements("xpath", f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Welcome {stamp}')]")
        assert wait_until(lambda: len(rows()) >= 30, timeout=60), browser.find_element("xpath", "//main").text[:3000]
        assert wait_until(lambda: "Up to date" in browser.find_element("xpath", "//section[@class='account']//p[contains(@class, 'sync-state')]").text,
                          timeout=60)
        # The progress the page followed: headers fetched of the total, per folder and overall.
        progress = events.named("headers")
        assert progress, events.events
        assert all(int(p["fetched"]) <= int(p["total"]) for p in progress)
        assert progress[-1]["fetched"] == progress[-1]["total"]
        assert any("Inbox:" in p["text"] for p in progress)
        assert events.named("accounts"), "the engine was told an account came"
    finally:
        events.close()
    # The settings came from the well-known path (autoconfig.tern.test has none); the address itself was never sent.
    assert ("tern.test", WELL_KNOWN) in documents.requests
    assert all("alice" not in path for _, path in documents.requests)
    assert axe_violations(browser) == []
    # The password is kept owner-only, not in the store.
    accounts = json_of(site["home"], "account", "list", "--json")
    assert [a["name"] for a in accounts] == ["home"] and accounts[0]["auth"] == "password-command"
    secret = site["home"] / "secrets" / f"{accounts[0]['id']}.password"
    assert secret.stat().st_mode & 0o777 == 0o600
    assert servers["TERN_TEST_PASSWORD"].encode() not in (site["home"] / "tern.sqlite").read_bytes()

    # A message sent from the new account.
    browser.get(f"{site['base']}/mail?compose=new")
    by_xpath(browser, "//input[@id='compose-to']").send_keys(user_address(servers, "bob") + ",")
    browser.find_element("xpath", "//input[@id='compose-subject']").send_keys(f"Hello from the web {stamp}")
    browser.find_element("xpath", "//*[@id='compose-body']").send_keys("Sent from a new account.")
    button = by_xpath(browser, "//form[@aria-labelledby='composer-title']//button[normalize-space()='Send']")
    assert wait_until(lambda: button.get_attribute("disabled") is None, timeout=10)
    button.click()
    assert arrived(servers, "bob", f"Hello from the web {stamp}")


def test_an_error_per_step_the_online_database_with_consent_and_typed_settings(site):
    browser, servers, documents = site["browser"], site["servers"], site["documents"]
    documents.documents[("localhost", "/v1.1/tern.test")] = client_config(
        "127.0.0.1", servers["TERN_IMAPS_PORT"], "127.0.0.1", servers["TERN_SMTPS_PORT"], name="From the database")
    browser.get(f"{site['base']}/accounts/new")
    by_xpath(browser, "//h1[normalize-space()='Add account']")
    assert axe_violations(browser) == []
    fill(browser, "Account name", "work")
    fill(browser, "Email address", user_address(servers, "bob"))
    fill(browser, "Password", "not the password")
    open_server_settings(browser)
    fill(browser, "Extra certificate authority (PEM file)", servers["TERN_TEST_CA"])

    # Looking up: nothing found without consent, and the database was not asked.
    continue_setup(browser)
    assert "No settings were found" in alert_text(browser) and "allow asking localhost" in alert_text(browser)
    assert step_state(browser, "Looking up settings") == "failed"
    assert ("localhost", "/v1.1/tern.test") not in documents.requests
    assert axe_violations(browser) == []

    # With consent the database gives the servers; the wrong password fails at signing in, the servers shown.
    field(browser, "Also ask the online database at localhost").click()
    continue_setup(browser)
    assert "refused the user name or password" in alert_text(browser)
    assert step_state(browser, "Looking up settings") == "done"
    assert step_state(browser, "Connecting to the incoming mail server") == "done"
    assert step_state(browser, "Signing in") == "failed"
    assert ("localhost", "/v1.1/tern.test") in documents.requests
    assert field(browser, "Server").get_attribute("value") == "127.0.0.1"
    assert "the online database" in browser.find_element("xpath", "//p[@id='setup-found']").text
    assert axe_violations(browser) == []

    # Typed settings: an IMAP port where nothing listens fails at connecting; nothing is looked up.
    fill(browser, "Password", servers["TERN_TEST_PASSWORD"])
    imap_port = browser.find_element("xpath", "//input[@id='account-imap-port']")
    imap_port.clear()
    imap_port.send_keys("1")
    requests_before = len(documents.requests)
    continue_setup(browser)
    assert "Couldn't connect to 127.0.0.1:1" in alert_text(browser)
    assert step_state(browser, "Connecting to the incoming mail server") == "failed"
    assert step_state(browser, "Looking up settings") == "skipped"
    assert len(documents.requests) == requests_before

    # Sending checked: an SMTP port where nothing listens fails at checking sending.
    imap_port.clear()
    imap_port.send_keys(servers["TERN_IMAPS_PORT"])
    smtp_port = browser.find_element("xpath", "//input[@id='account-smtp-port']")
    smtp_port.clear()
    smtp_port.send_keys("1")
    continue_setup(browser)
    assert "Couldn't check sending with 127.0.0.1:1" in alert_text(browser)
    assert step_state(browser, "Signing in") == "done" and step_state(browser, "Checking sending") == "failed"
    assert json_of(site["home"], "account", "list", "--json") == [], "a failed setup keeps nothing"
    assert axe_violations(browser) == []

    # Every step passes: the typed settings are kept.
    smtp_port.clear()
    smtp_port.send_keys(servers["TERN_SMTPS_PORT"])
    continue_setup(browser)
    assert wait_until(lambda: browser.current_url.endswith("/mail"), timeout=30)
    account = json_of(site["home"], "account", "list", "--json")[0]
    assert account["name"] == "work" and account["imap"]["port"] == int(servers["TERN_IMAPS_PORT"])


def store_counts(home, account_id):
    database = sqlite3.connect(home / "tern.sqlite")
    try:
        counts = {}
        for table in ("folder", "email", "thread", "draft", "pendingOperation", "contactCacheEntry"):
            try:
                counts[table] = database.execute(f"SELECT count(*) FROM {table} WHERE accountId = ?", (account_id,)).fetchone()[0]
            except sqlite3.OperationalError:
                counts[table] = None
        for table, key in (("searchIndex", "rowid"), ("outgoingMessage", "emailId"), ("emailFolder", "emailId")):
            counts[table] = database.execute(
                f"SELECT count(*) FROM {table} WHERE {key} IN (SELECT id FROM email WHERE accountId = ?)", (account_id,)).fetchone()[0]
        counts["account"] = database.execute("SELECT count(*) FROM account WHERE id = ?", (account_id,)).fetchone()[0]
        counts["allSearchEntries"] = database.execute("SELECT count(*) FROM searchIndex").fetchone()[0]
        return counts
    finally:
        database.close()


def test_removing_one_of_two_accounts_leaves_the_other_whole(servers, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    add_account(home, servers, "alice", name="one", smtp=NO_SMTP)
    add_account(home, servers, "bob", name="two")
    stamp = uuid.uuid4().hex[:10]
    plant_messages(servers, "alice", 3, f"Welcome {stamp}")
    plant_messages(servers, "bob", 3, f"Welcome {stamp}")
    sync(home, "one")
    sync(home, "two")
    env = dict(os.environ, TERN_HOME=str(home), TERN_NO_BACKGROUND_PUSH="1")
    # A message queued for the account being removed: its SMTP server cannot be reached.
    queued = subprocess.run([str(TERN), "send", "--account", "one", "--to", user_address(servers, "bob"), "--subject", f"Queued {stamp}",
                             "--body", "Never sent.", "--queue-only"], env=env, capture_output=True, text=True)
    assert queued.returncode == 0, queued.stderr
    accounts = {a["name"]: a["id"] for a in json_of(home, "account", "list", "--json")}
    for account_id in accounts.values():
        (home / "attachments" / account_id).mkdir(parents=True, exist_ok=True)
        (home / "attachments" / account_id / "kept.bin").write_bytes(b"x")
    other_before = store_counts(home, accounts["two"])
    removed_before = store_counts(home, accounts["one"])
    assert removed_before["email"] > 0 and removed_before["searchIndex"] > 0 and removed_before["outgoingMessage"] == 1

    port = free_port()
    server = start_serve(home, port, "--no-sync")
    browser = chromium(page_load_timeout=20)
    try:
        base = browser_sign_in(browser, port)
        browser.get(f"{base}/settings")
        by_xpath(browser, "//a[@aria-label='Remove account one']").click()
        by_xpath(browser, "//h1[normalize-space()='Remove account one?']")
        page = browser.find_element("xpath", "//main").text
        assert "stored messages" in page and "search entries" in page and "downloaded attachments" in page
        assert "1 message waiting to be sent" in page and "saved password" in page
        assert axe_violations(browser) == []
        # Asked first about the queued mail: without the confirmation nothing is removed.
        web = sign_in(port)
        page_html = web.request("GET", "/settings")[1]
        csrf = page_html.split('name="csrf" value="')[1].split('"')[0]
        refused, _ = web.request("POST", "/accounts/remove", {"Content-Type": "application/x-www-form-urlencoded"},
                                 f"csrf={csrf}&account=one")
        assert refused.status == 409
        assert store_counts(home, accounts["one"])["account"] == 1
        field(browser, "Discard the mail waiting to be sent").click()
        browser.find_element("xpath", "//button[normalize-space()='Remove account one']").click()
        by_xpath(browser, "//p[@role='status' and normalize-space()='The account was removed.']")
        assert browser.find_elements("xpath", "//a[@aria-label='Remove account one']") == []
        assert browser.find_elements("xpath", "//a[@aria-label='Remove account two']")
        assert axe_violations(browser) == []
    finally:
        browser.quit()
        server.terminate()
        server.wait(timeout=10)
    gone = store_counts(home, accounts["one"])
    assert {k: v for k, v in gone.items() if k != "allSearchEntries"} == {k: (0 if v is not None else None) for k, v in removed_before.items()
                                                                          if k != "allSearchEntries"}
    assert gone["allSearchEntries"] == removed_before["allSearchEntries"] - removed_before["searchIndex"]
    kept = store_counts(home, accounts["two"])
    assert {k: v for k, v in kept.items() if k != "allSearchEntries"} == {k: v for k, v in other_before.items() if k != "allSearchEntries"}
    assert not (home / "attachments" / accounts["one"]).exists()
    assert (home / "attachments" / accounts["two"] / "kept.bin").read_bytes() == b"x"
    assert [a["name"] for a in json_of(home, "account", "list", "--json")] == ["two"]
    assert json_of(home, "search", stamp, "--limit", "100") and all(
        hit.get("account", "two") == "two" for hit in json_of(home, "search", stamp, "--limit", "100"))
