"""`tern serve` end to end (issue 17, 18): the real server on a free port over a store synced from the real Dovecot,
attacked with raw HTTP, and used in Debian's Chromium the way assistive technology reads it — elements found by role
and accessible name — with axe-core (axe-core 4.9, from the PyPI package selenium-axe-python) reporting no violation in each state."""
import http.client
import os
import signal
import socket
import subprocess
import time
import uuid

import pytest

from support.accounts import add_account
from support.browser import axe_violations, by_xpath, chromium, open_thread_by_name
from support.imap import flags_of, imap_for, uids_with_message_id
from support.messages import plant_thread, raw_message
from support.servers import free_port, user_address
from support.tern import TERN
from support.waiting import wait_until
from support.web import TOKEN, csrf_of, origin, request, sign_in, start_serve

USER = "bob"


@pytest.fixture(scope="module")
def site(servers, tmp_path_factory):
    """A synced account with planted threads, and `tern serve --no-sync` over it."""
    import ssl
    home = tmp_path_factory.mktemp("web-home")
    add_account(home, servers, USER)
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    stamp, root = plant_thread(servers, imap, 3, unread=(2,))
    hostile = uuid.uuid4().hex[:10]
    imap.append("INBOX", "", None, raw_message(
        user_address(servers, "dave"), f"Offer {hostile}", message_id=f"<hostile-{hostile}@example.org>", sender="promo@example.net",
        html=('<p>Hello</p><img src="https://tracker.example/p.gif" width="1" height="1">'
              '<img src="https://images.example/logo.png" alt="logo"><script>window.top.pwned = 1</script>'
              '<a href="https://evil.example/login">https://bank.example</a>'
              '<img src=x onerror="window.top.pwned = 2"><svg onload="window.top.pwned = 3"></svg>')))
    subprocess.run([str(TERN), "sync", USER], env=dict(os.environ, TERN_HOME=str(home)), check=True, capture_output=True, timeout=120)
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    web = sign_in(port)
    yield {"home": home, "port": port, "origin": origin(port), "app": web.app, "base": web.base, "stamp": stamp, "root": root,
           "hostile": hostile, "imap": imap, "servers": servers}
    server.terminate()
    server.wait(timeout=10)
    imap.logout()


def session_cookie(site):
    web = sign_in(site["port"])
    assert web.app == site["app"]
    attributes = web.attributes
    assert "httponly" in attributes and attributes["samesite"] == "Strict" and attributes["path"] == site["app"], web.set_cookie
    return web.cookie


# ---- Security, as an attacker would send it --------------------------------------------------------------------

def test_another_host_name_is_refused(site):
    cookie = session_cookie(site)
    for host in ("evil.example", f"evil.example:{site['port']}", "127.0.0.1", f"127.0.0.2:{site['port']}", f"[::1]:{site['port']}"):
        response, _ = request(site, "GET", "/mail", {"Cookie": cookie}, host=host)
        assert response.status == 421, host
    response, _ = request(site, "GET", "/mail", {"Cookie": cookie}, host=f"localhost:{site['port']}")
    assert response.status == 200


def test_without_the_session_nothing_is_served_and_a_wrong_token_gets_no_cookie(site):
    for path in ("/mail", "/events", "/settings", "/bodies/1", "/fragments/conversation?thread=1", "/contacts?q=a"):
        response, _ = request(site, "GET", path)
        assert response.status == 401, path
    response, _ = request(site, "GET", "/?token=" + "x" * len(TOKEN))
    assert response.status == 401 and response.getheader("Set-Cookie") is None


def test_changes_need_the_csrf_token_and_other_sites_are_refused_whatever_the_path(site):
    cookie = session_cookie(site)
    form = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}
    response, _ = request(site, "POST", "/actions/archive", form, body="thread=1")
    assert response.status == 403
    response, _ = request(site, "POST", "/settings", form, body="undo-send-delay=0&csrf=" + "0" * 64)
    assert response.status == 403
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Sec-Fetch-Site": "same-site"}):
        for method, path in (("GET", "/mail"), ("POST", "/actions/undo"), ("GET", "/assets/app.js"), ("GET", f"/?token={TOKEN}")):
            response, _ = request(site, method, path, {"Cookie": cookie, **headers}, body="" if method == "POST" else None)
            assert response.status == 403, (method, path, headers)


def test_the_settings_page_pauses_and_resumes_the_catch_up_of_older_mail(site):
    """FR-SYNC-01 stage D from the web app: "Older mail in the background" set to Paused is the `catch-up` setting."""
    cookie = session_cookie(site)
    page = request(site, "GET", "/settings", {"Cookie": cookie})[1]
    assert "Older mail in the background" in page and "Older mail on a metered connection" in page
    form = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}
    setting = lambda: subprocess.run([str(TERN), "settings", "get", "catch-up"], env=dict(os.environ, TERN_HOME=str(site["home"])),  # noqa: E731
                                     capture_output=True, text=True, check=True).stdout.strip()
    try:
        response, _ = request(site, "POST", "/settings", form, body=f"catch-up=paused&csrf={csrf_of(page)}")
        assert response.status in (200, 303)
        assert setting().endswith("paused")
    finally:
        request(site, "POST", "/settings", form, body=f"catch-up=on&csrf={csrf_of(page)}")
    assert setting().endswith("on")


def test_pages_and_bodies_carry_their_policies(site):
    cookie = session_cookie(site)
    response, page = request(site, "GET", "/mail", {"Cookie": cookie})
    policy = response.getheader("Content-Security-Policy")
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "http" not in policy
    assert response.getheader("X-Frame-Options") == "DENY"
    assert response.getheader("X-Content-Type-Options") == "nosniff"
    assert response.getheader("Referrer-Policy") == "same-origin"
    assert page.count("<script") == 1 and 'src="/assets/app.js"' in page
    assert "http://" not in page.replace(f"http://127.0.0.1:{site['port']}", "") and "https://" not in page
    response, _ = request(site, "GET", "/bodies/1?thread=1", {"Cookie": cookie})
    assert response.getheader("Content-Security-Policy").startswith("default-src 'none'; style-src 'unsafe-inline'; img-src data:;")


def test_it_listens_on_loopback_only_and_refuses_other_addresses(site, tmp_path):
    addresses = subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
    for address in [a for a in addresses if ":" not in a][:2]:
        with pytest.raises(OSError):
            socket.create_connection((address, site["port"]), timeout=2).close()
    result = subprocess.run([str(TERN), "serve", "--host", "0.0.0.0", "--port", str(free_port())],
                            env=dict(os.environ, TERN_HOME=str(tmp_path)), capture_output=True, text=True, timeout=20)
    assert result.returncode != 0 and "127.0.0.1 only" in result.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_it_gracefully_even_with_an_event_stream_open(tmp_path, sig):
    port = free_port()
    server = start_serve(tmp_path, port, "--no-sync")
    web = sign_in(port)
    stream = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    stream.request("GET", web.path("/events"), headers={"Cookie": web.cookie})
    assert stream.getresponse().status == 200
    server.send_signal(sig)
    assert server.wait(timeout=10) == 0


# ---- In Chromium ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser(site):
    driver = chromium(offline=True, console_log=True, page_load_timeout=15)
    driver.get(f"{site['origin']}/?token={TOKEN}")  # the printed address: signed in, into the app's secret path
    assert driver.current_url == f"{site['base']}/mail", driver.current_url
    yield driver
    driver.quit()


def test_opening_a_thread_shows_articles_named_by_sender_time_and_state_and_marks_it_read(browser, site):
    imap = site["imap"]
    assert "\\Seen" not in flags_of(imap, "INBOX", f"<reply-2-{site['stamp']}@example.org>")
    open_thread_by_name(browser, site, f"Thread {site['stamp']}")
    articles = browser.find_elements("xpath", "//main//article")
    assert len(articles) == 3
    names = [article.get_attribute("aria-label") for article in articles]
    assert all("zoe@example.org" in name for name in names), names
    assert all(name.endswith(", read") for name in names), names  # opening marked them read first (FR-ED-01)
    # The message that was unread is the one expanded; the read ones are collapsed (FR-ED-01).
    states = [a.find_element("xpath", ".//a[@aria-expanded]").get_attribute("aria-expanded") for a in articles]
    assert states == ["false", "false", "true"], states
    # The store was marked read at once; the server hears of it through the engine's push (tern sync here).
    subprocess.run([str(TERN), "sync", USER], env=dict(os.environ, TERN_HOME=str(site["home"])), check=True, capture_output=True, timeout=60)
    assert wait_until(lambda: "\\Seen" in flags_of(imap, "INBOX", f"<reply-2-{site['stamp']}@example.org>"), 10)


def test_a_collapsed_message_expands_from_the_keyboard(browser, site):
    from selenium.webdriver.common.keys import Keys
    open_thread_by_name(browser, site, f"Thread {site['stamp']}")
    toggle = by_xpath(browser, "//main//article[1]//a[@aria-expanded='false']")
    toggle.send_keys(Keys.ENTER)
    assert wait_until(lambda: browser.switch_to.active_element.get_attribute("aria-expanded") == "true")


def test_hostile_mail_runs_nothing_loads_nothing_and_says_what_was_blocked(browser, site):
    open_thread_by_name(browser, site, f"Offer {site['hostile']}")
    by_xpath(browser, "//main//summary[contains(., 'tracker') and contains(., 'blocked')]")
    by_xpath(browser, "//main//*[contains(., 'remote image') and contains(., 'blocked to protect your privacy')]")
    frame = by_xpath(browser, "//main//iframe[starts-with(@title, 'Message from promo@example.net, ')]")
    # Issue 39: the frame keeps the app's origin (the page sizes it to its body) and never allows scripts.
    assert frame.get_attribute("sandbox").split() == ["allow-same-origin", "allow-popups", "allow-popups-to-escape-sandbox"]
    time.sleep(0.5)
    assert browser.execute_script("return window.pwned === undefined")
    requests = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert all(name.startswith((f"{site['base']}/", f"{site['origin']}/assets/")) for name in requests), requests
    # "Load remote images" allows them for this message only: the frame's policy opens img-src.
    by_xpath(browser, "//main//a[normalize-space()='Load remote images']").click()
    frame = by_xpath(browser, "//main//iframe[contains(@src, 'images=1')]")
    assert browser.execute_script("return window.pwned === undefined")


def test_archive_then_undo_from_the_toast_leaves_the_server_untouched(browser, site):
    stamp, root = plant_thread(site["servers"], site["imap"], 1)
    subprocess.run([str(TERN), "sync", USER], env=dict(os.environ, TERN_HOME=str(site["home"])), check=True, capture_output=True, timeout=60)
    open_thread_by_name(browser, site, f"Thread {stamp}")
    by_xpath(browser, "//div[@role='toolbar']//button[normalize-space()='Archive']").click()
    undo = by_xpath(browser, "//div[@role='status']//button[normalize-space()='Undo']")
    # Read once the toast has faded in: Selenium's visible text of an element at opacity 0 is empty.
    assert wait_until(lambda: "archived" in browser.find_element("id", "toasts").text), browser.find_element("id", "toasts").get_attribute("textContent")
    assert wait_until(lambda: browser.execute_script("return location.search") == "")  # back to the list
    undo.click()
    by_xpath(browser, "//div[@role='status']//*[contains(., 'restored')]")
    by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Thread {stamp}')]")
    time.sleep(6)  # past the window: nothing may have been queued for the server
    subprocess.run([str(TERN), "sync", USER], env=dict(os.environ, TERN_HOME=str(site["home"])), check=True, capture_output=True, timeout=60)
    assert uids_with_message_id(site["imap"], "INBOX", root)


def test_keyboard_shortcuts_open_go_back_and_list_themselves(browser, site):
    browser.get(f"{site['base']}/mail")
    body = by_xpath(browser, "//body")
    body.send_keys("j")
    assert browser.switch_to.active_element.get_attribute("class") == "thread-link"
    browser.switch_to.active_element.send_keys("o")
    by_xpath(browser, "//main//div[@role='toolbar']")
    assert "thread=" in browser.current_url
    browser.switch_to.active_element.send_keys("u")
    assert wait_until(lambda: "thread=" not in browser.current_url)
    by_xpath(browser, "//body").send_keys("?")
    dialog = by_xpath(browser, "//dialog[@open and @aria-labelledby='shortcuts-title']")
    assert "Archive" in dialog.text and "Reply" in dialog.text


def test_search_as_you_type(browser, site):
    browser.get(f"{site['base']}/mail")
    box = by_xpath(browser, "//form[@role='search']//input[@type='search']")
    assert browser.find_element("xpath", "//label[@for='search-input']").get_attribute("textContent") == "Search mail"
    box.send_keys(site["hostile"])
    assert wait_until(lambda: "q=" in browser.current_url)
    by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Offer {site['hostile']}')]")
    assert len(browser.find_elements("xpath", "//ul[@aria-labelledby='list-title']/li")) == 1


def test_the_empty_conversation_state(browser, site):
    browser.get(f"{site['base']}/mail?thread=987654321")
    by_xpath(browser, "//main//h2[normalize-space()='This conversation appears empty']")
    by_xpath(browser, "//main//a[normalize-space()='Back to the list']")


def test_one_pane_at_430_px_with_back(browser, site):
    browser.set_window_size(400, 800)
    try:
        open_thread_by_name(browser, site, f"Thread {site['stamp']}")
        assert not browser.find_element("id", "list-pane").is_displayed()
        back = by_xpath(browser, "//div[@role='toolbar']//a[normalize-space()='Back']")
        assert back.is_displayed()
        back.click()
        assert wait_until(lambda: browser.find_element("id", "list-pane").is_displayed())
        assert browser.execute_script("return document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    finally:
        browser.set_window_size(1280, 900)


def test_reply_opens_the_composer_prefilled_with_focus_in_the_body(browser, site):
    open_thread_by_name(browser, site, f"Thread {site['stamp']}")
    by_xpath(browser, "//div[@role='toolbar']//a[normalize-space()='Reply']").click()
    form = by_xpath(browser, "//form[@aria-labelledby='composer-title']")
    assert browser.switch_to.active_element.get_attribute("id") == "compose-body"
    token = by_xpath(browser, "//ul[@aria-label='To recipients']/li")
    assert "zoe@example.org" in token.text
    assert by_xpath(browser, "//button[@aria-label='Remove zoe@example.org']")
    subject = browser.find_element("xpath", "//label[normalize-space()='Subject']/following::input[1]").get_attribute("value")
    assert subject == f"Re: Thread {site['stamp']}"
    assert "wrote:" in form.find_element("id", "compose-body").get_attribute("value")


@pytest.mark.parametrize("state", ["list", "thread", "composer", "settings", "shortcuts", "one pane", "200% zoom", "empty",
                                   "toast", "search results", "no results", "error", "loading"])
def test_axe_finds_no_violation(browser, site, state):
    try:
        if state == "list":
            browser.get(f"{site['base']}/mail")
        elif state in ("thread", "one pane", "200% zoom"):
            if state == "one pane":
                browser.set_window_size(400, 800)
            if state == "200% zoom":
                browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 640, "height": 450, "deviceScaleFactor": 2, "mobile": False})
            open_thread_by_name(browser, site, f"Offer {site['hostile']}")
            if state == "200% zoom":
                assert browser.execute_script("return document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        elif state == "composer":
            open_thread_by_name(browser, site, f"Thread {site['stamp']}")
            by_xpath(browser, "//div[@role='toolbar']//a[normalize-space()='Reply all']").click()
            by_xpath(browser, "//form[@aria-labelledby='composer-title']")
            time.sleep(0.5)
        elif state == "settings":
            browser.get(f"{site['base']}/settings")
        elif state == "empty":
            browser.get(f"{site['base']}/mail?thread=987654321")
        elif state == "toast":
            open_thread_by_name(browser, site, f"Thread {site['stamp']}")
            by_xpath(browser, "//div[@role='toolbar']//button[normalize-space()='Star' or normalize-space()='Unstar']").click()
            by_xpath(browser, "//body").send_keys("?")
            browser.find_element("xpath", "//dialog[@open]//button[normalize-space()='Close']").click()
            browser.execute_script("document.getElementById('toasts').insertAdjacentHTML('beforeend', "
                                   "'<div class=\"toast\"><span>Conversation archived.</span><button type=\"button\">Undo</button></div>')")
            time.sleep(0.5)  # past its fade-in
        elif state in ("search results", "no results"):
            browser.get(f"{site['base']}/mail?q={site['hostile'] if state == 'search results' else 'nothing-matches-this'}")
        elif state in ("error", "loading"):
            browser.get(f"{site['base']}/mail")
            # The server's answer held back (loading) or refused (error) through the browser's own network layer.
            browser.execute_cdp_cmd("Network.enable", {})
            if state == "error":
                browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/fragments/conversation*"]})
            else:
                browser.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 3000,
                                                                              "downloadThroughput": -1, "uploadThroughput": -1})
            browser.find_element("xpath", "//ul[@aria-labelledby='list-title']//a").click()
            text = "Couldn't load this conversation" if state == "error" else "Loading conversation…"
            by_xpath(browser, f"//main//*[contains(., \"{text}\")]")
        elif state == "shortcuts":
            browser.get(f"{site['base']}/mail")
            by_xpath(browser, "//button[normalize-space()='Keyboard shortcuts']").click()
            by_xpath(browser, "//dialog[@open]")
        assert axe_violations(browser) == []
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        browser.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1,
                                                                      "uploadThroughput": -1})
        browser.set_window_size(1280, 900)
