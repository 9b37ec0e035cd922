"""Issue 36 in Chromium: a list message's Unsubscribe (found by role and name) opens a question naming the list and
where the request goes, and nothing reaches the list's recording HTTPS server until its Unsubscribe button; then exactly
one RFC 8058 POST arrives and the result is shown. Show original lays out the authentication results and the path
through servers as tables, with the source as text (a script in it is never run); Download message answers the
server's bytes as an attachment. axe-core finds nothing on either page."""
import ssl
import urllib.request
import uuid

import pytest

from support.accounts import add_account
from support.browser import axe_violations, by_xpath, chromium, open_thread_by_name
from support.imap import imap_for
from support.list_server import start_list_server
from support.messages import raw_message
from support.servers import free_port, user_address
from support.tern import sync
from support.web import browser_sign_in, start_serve

USER = "carol"


@pytest.fixture(scope="module")
def site(servers, tmp_path_factory):
    list_server = start_list_server(servers)

    home = tmp_path_factory.mktemp("web-unsubscribe-home")
    add_account(home, servers, USER)
    stamp = uuid.uuid4().hex[:8]
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    try:
        raw = raw_message(
            user_address(servers, USER), f"Digest {stamp}", "<script>alert(1)</script> This week.", sender="Digest <digest@lists.example.org>",
            headers={
                "List-Id": "Example Digest <digest.lists.example.org>",
                "List-Unsubscribe": f"<https://localhost:{list_server.server_address[1]}/u/{stamp}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                "Authentication-Results": "mail.tern.test; spf=pass smtp.mailfrom=lists.example.org; dkim=pass header.d=lists.example.org",
                "Received": "from out.lists.example.org (out.lists.example.org [192.0.2.7]) by mail.tern.test (Postfix) with ESMTPS id 4X; "
                            "Tue, 3 Mar 2026 10:00:05 +0000",
            })
        imap.select("INBOX")
        imap.append("INBOX", "", None, raw)
        imap.select("INBOX", readonly=True)
        [uid] = imap.uid("SEARCH", None, "SUBJECT", f'"Digest {stamp}"')[1][0].split()
        server_bytes = imap.uid("FETCH", uid, "(BODY.PEEK[])")[1][0][1]
    finally:
        imap.logout()
    sync(home, USER)
    port = free_port()
    server = start_serve(home, port, "--no-sync", env={"TERN_UNSUBSCRIBE_CA_FILE": servers["TERN_TEST_CA"]})
    driver = chromium()
    yield {"base": browser_sign_in(driver, port), "stamp": stamp, "browser": driver, "list": list_server, "bytes": server_bytes}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)
    list_server.shutdown()


def test_unsubscribe_asks_first_then_posts_once(site):
    browser = site["browser"]
    open_thread_by_name(browser, site, f"Digest {site['stamp']}")
    link = by_xpath(browser, "//a[normalize-space()='Unsubscribe' and starts-with(@aria-label, 'Unsubscribe (the message from Digest')]")
    link.click()
    by_xpath(browser, "//h1[normalize-space()='Unsubscribe from Example Digest?']")
    assert "localhost" in browser.find_element("tag name", "main").text
    assert site["list"].requests == [], "the question fetched nothing from the list"
    assert axe_violations(browser) == []
    browser.find_element("xpath", "//button[normalize-space()='Unsubscribe']").click()
    by_xpath(browser, "//h1[normalize-space()='Unsubscribed']", timeout=15)
    assert by_xpath(browser, "//p[@role='status']").text.startswith("The list confirmed the request")
    assert [(r["method"], r["path"], r["body"]) for r in site["list"].requests] == [
        ("POST", f"/u/{site['stamp']}", b"List-Unsubscribe=One-Click")]
    assert axe_violations(browser) == []
    browser.find_element("xpath", "//a[normalize-space()='Back to mail' and contains(@class, 'button')]").click()
    open_thread_by_name(browser, site, f"Digest {site['stamp']}")
    by_xpath(browser, "//a[normalize-space()='Unsubscribe']").click()
    assert "You unsubscribed from this list on" in by_xpath(browser, "//p[contains(@class, 'notice')]").text
    browser.find_element("xpath", "//a[normalize-space()='Cancel']").click()
    by_xpath(browser, f"//main//h2[contains(., 'Digest {site['stamp']}')]")
    assert len(site["list"].requests) == 1


def test_show_original_lays_out_the_header_and_shows_the_source_as_text(site):
    browser = site["browser"]
    open_thread_by_name(browser, site, f"Digest {site['stamp']}")
    by_xpath(browser, "//a[normalize-space()='Show original']").click()
    by_xpath(browser, "//h1[normalize-space()='Original message']", timeout=15)
    summary = browser.find_element("xpath", "//table[caption[normalize-space()='Message']]").text
    assert "SPF PASS" in summary and "DKIM PASS" in summary, summary
    hops = browser.find_element("xpath", "//table[caption[starts-with(normalize-space(), 'Path through servers')]]").text
    assert "out.lists.example.org" in hops and "mail.tern.test (Postfix)" in hops and "ESMTPS" in hops, hops
    source = browser.find_element("xpath", "//pre[@aria-labelledby='original-source']")
    assert "<script>alert(1)</script>" in source.text and not browser.find_elements("xpath", "//main//script")
    assert axe_violations(browser) == []
    download = browser.find_element("xpath", "//a[normalize-space()='Download message']")
    assert download.get_attribute("download") is not None
    cookies = {cookie["name"]: cookie["value"] for cookie in browser.get_cookies()}
    request = urllib.request.Request(download.get_attribute("href"), headers={"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())})
    with urllib.request.urlopen(request, timeout=15) as response:
        assert response.headers["Content-Disposition"].startswith("attachment")
        assert response.read() == site["bytes"]
