"""Issue 37, links without click tracking, in the web app: a link through a mailer's click tracker says
"tracked link: goes through HOST first" when it has keyboard focus (and on hover: the same rule); links lose their
tracking parameters and their redirectors; `tern thread --json` counts what was done, per message."""
import urllib.parse
import uuid

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from support.accounts import ACCEPTANCE_USER
from support.browser import by_xpath, open_thread_by_name
from support.messages import acceptance_message as message, thread_id_of
from support.tern import json_of, sync
from support.web import get

USER = ACCEPTANCE_USER
TRACKED = "https://u4821.ct.sendgrid.net/ls/click?upn=opaque-token"
WRAPPED = ("https://nam12.safelinks.protection.outlook.com/?url="
           + urllib.parse.quote("https://docs.example.org/report?id=7&utm_source=mail", safe="") + "&data=05")


def test_a_tracked_link_names_its_tracker_on_focus_and_the_thread_counts_the_links(browser, app):
    stamp = uuid.uuid4().hex[:10]
    html = (f'<p>Intro text {stamp}.</p><p><a href="{TRACKED}">Shop the sale</a></p>'
            f'<p><a href="https://shop.example/new?utm_source=news&amp;fbclid=F&amp;id=3">New arrivals</a></p>'
            f'<p><a href="{WRAPPED.replace("&", "&amp;")}">The report</a></p>'
            f'<style>@font-face {{ font-family: Brand; src: url(https://fonts.example/brand.woff2) }}</style>')
    app["imap"].append("INBOX", "", None, message(f"Links {stamp}", html=html))
    sync(app["home"], USER)
    open_thread_by_name(browser, app, f"Links {stamp}")
    frame = by_xpath(browser, "//main//article//iframe")
    _, body = get(app, frame.get_attribute("src"))
    body = body.decode()
    assert 'href="https://shop.example/new?id=3"' in body and "utm_source" not in body and "fbclid" not in body
    assert 'href="https://docs.example.org/report?id=7"' in body and "safelinks" not in body
    assert 'data-tern-tracked-host="u4821.ct.sendgrid.net"' in body
    browser.switch_to.frame(frame)
    try:
        tracked = browser.find_element("xpath", "//a[normalize-space()='Shop the sale']")
        # Keyboard focus: into the document, then Tab to its first link.
        ActionChains(browser).move_to_element(browser.find_element("xpath", f"//p[contains(., 'Intro text {stamp}')]")).click().perform()
        ActionChains(browser).send_keys(Keys.TAB).perform()
        assert browser.execute_script("return document.activeElement") == tracked
        note = browser.execute_script("return getComputedStyle(arguments[0], '::before').content", tracked)
        assert note == f'"tracked link: goes through u4821.ct.sendgrid.net first · {TRACKED}"', note
        # A link that is not tracked shows its destination only.
        ActionChains(browser).send_keys(Keys.TAB).perform()
        plain = browser.find_element("xpath", "//a[normalize-space()='New arrivals']")
        assert browser.execute_script("return document.activeElement") == plain
        note = browser.execute_script("return getComputedStyle(arguments[0], '::before').content", plain)
        assert note == '"https://shop.example/new?id=3"', note
        # On hover, the same note.
        ActionChains(browser).move_to_element(tracked).perform()
        note = browser.execute_script("return getComputedStyle(arguments[0], '::before').content", tracked)
        assert note == f'"tracked link: goes through u4821.ct.sendgrid.net first · {TRACKED}"', note
    finally:
        browser.switch_to.default_content()
    thread = json_of(app["home"], "thread", f"t{thread_id_of(app['home'], stamp)}", "--keep-unread")
    [shown] = [m for m in thread["messages"] if stamp in (m["text"] or "")]
    assert shown["privacy"] == {
        "imageTrackers": 0, "cssTrackers": 0, "fontTrackers": 1, "linksCleaned": 2, "linksUnwrapped": 1, "linksTracked": 1,
        "trackedLinkHosts": ["u4821.ct.sendgrid.net"], "remoteHosts": [], "readReceiptRequested": False,
        "authentication": {"spf": None, "dkim": None, "dmarc": None, "verdict": "unknown", "authservId": None}}
    assert shown["trackersBlocked"] == 1 and shown["trackerHosts"] == ["fonts.example"]
