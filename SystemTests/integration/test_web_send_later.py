"""Send later and mailto: links in the web app (issue 36), in Chromium by role and accessible name, with axe-core finding
no violation on the Schedule send menu and its picker, the scheduled message in the Outbox, and the Email links
settings. Schedule send offers the common choices (each naming the day and time it means) and a date-time picker; the
message waits in the Outbox with its time, Edit takes it back to the composer, Cancel sending discards it after asking.
Settings offers Tern as the browser's handler for mailto: links; a link opens the composer prefilled and never sends by
itself; hostile links are refused with a notice; the cross-site navigation a handler makes is handed on, nothing else."""
import json
import os
import subprocess
import time
import urllib.parse
from datetime import datetime, timedelta

import pytest
from selenium.webdriver.common.keys import Keys

from support.accounts import ACCEPTANCE_USER, add_account
from support.browser import axe_violations, by_xpath, chromium
from support.servers import free_port
from support.tern import TERN
from support.waiting import wait_until
from support.web import browser_sign_in, http_request, sign_in, start_serve

USER = ACCEPTANCE_USER


@pytest.fixture(scope="module")
def site(servers, tmp_path_factory):
    home = tmp_path_factory.mktemp("send-later-home")
    add_account(home, servers, USER)
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    driver = chromium(page_load_timeout=15)
    yield {"home": home, "port": port, "base": browser_sign_in(driver, port), "browser": driver}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)


def outbox(home):
    result = subprocess.run([str(TERN), "outbox", "list", "--json"], env=dict(os.environ, TERN_HOME=str(home)),
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def scheduled_time(entry):
    return datetime.fromisoformat(entry["scheduledAt"].replace("Z", "+00:00")).astimezone()


def new_message(browser, base, subject):
    browser.get(f"{base}/mail?compose=new")
    form = by_xpath(browser, "//form[@aria-labelledby='composer-title']")
    form.find_element("id", "compose-to").send_keys("bob@tern.test,")
    form.find_element("id", "compose-subject").send_keys(subject)
    form.find_element("id", "compose-body").send_keys("See you then.")
    return form


def open_schedule_menu(browser, form):
    """Opened from the keyboard (Enter on the disclosure), as a toast may lie over it."""
    form.find_element("xpath", ".//summary[normalize-space()='Schedule send']").send_keys(Keys.ENTER)
    menu = by_xpath(browser, "//div[@role='group'][@aria-labelledby='schedule-title']")
    assert wait_until(menu.is_displayed)
    return menu


def open_in_outbox(browser, base, subject):
    browser.get(f"{base}/mail?view=outbox")
    by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, '{subject}')]").click()
    return by_xpath(browser, "//main//div[@role='group'][@aria-label='Scheduled send']")


def test_schedule_send_edit_and_cancel(site):
    browser, base, home = site["browser"], site["base"], site["home"]
    subject = f"Later web {int(time.time() * 1000)}"
    form = new_message(browser, base, subject)
    menu = open_schedule_menu(browser, form)
    tomorrow = datetime.now().astimezone() + timedelta(days=1)
    choice = menu.find_element("xpath", ".//button[starts-with(normalize-space(), 'Tomorrow morning')]")
    assert tomorrow.strftime("%-d %B %Y, 08:00") in choice.text, choice.text
    assert menu.find_element("xpath", ".//label[normalize-space()='Date and time']").get_attribute("for") == "schedule-at"
    assert menu.find_element("xpath", ".//button[normalize-space()='Schedule']")
    assert axe_violations(browser) == []
    choice.click()
    assert wait_until(lambda: "Scheduled to send" in browser.find_element("id", "toasts").text, 10)
    [entry] = [e for e in outbox(home) if e["subject"] == subject]
    assert scheduled_time(entry).strftime("%Y-%m-%d %H:%M") == tomorrow.strftime("%Y-%m-%d 08:00")

    # In the Outbox: its time, Edit and Cancel sending.
    group = open_in_outbox(browser, base, subject)
    assert "Scheduled to send" in group.text and "08:00" in group.text
    assert axe_violations(browser) == []
    group.find_element("xpath", ".//button[normalize-space()='Edit']").click()
    form = by_xpath(browser, "//form[@aria-labelledby='composer-title']")
    assert wait_until(lambda: form.find_element("id", "compose-subject").get_attribute("value") == subject, 10)
    assert [e for e in outbox(home) if e["subject"] == subject] == [], "edited: not scheduled any more"

    # The picker: a time an hour and a half ahead, in the browser's time zone.
    menu = open_schedule_menu(browser, form)
    picked = (datetime.now() + timedelta(minutes=90)).replace(second=0, microsecond=0)
    picker = menu.find_element("id", "schedule-at")
    browser.execute_script("arguments[0].value = arguments[1]", picker, picked.strftime("%Y-%m-%dT%H:%M"))
    assert axe_violations(browser) == []
    menu.find_element("xpath", ".//button[normalize-space()='Schedule']").send_keys(Keys.ENTER)
    assert wait_until(lambda: [e for e in outbox(home) if e["subject"] == subject], 10)
    [entry] = [e for e in outbox(home) if e["subject"] == subject]
    assert scheduled_time(entry).replace(tzinfo=None) == picked

    # Cancel sending asks first; then the message is gone.
    group = open_in_outbox(browser, base, subject)
    group.find_element("xpath", ".//button[normalize-space()='Cancel sending']").click()
    dialog = by_xpath(browser, "//dialog[@open][.//h2[starts-with(normalize-space(), 'Cancel sending this message?')]]")
    assert axe_violations(browser) == []
    dialog.find_element("xpath", ".//button[normalize-space()='Cancel sending']").click()
    assert wait_until(lambda: [e for e in outbox(home) if e["subject"] == subject] == [], 10)


def test_settings_offer_tern_for_email_links(site):
    browser, base = site["browser"], site["base"]
    browser.get(f"{base}/settings")
    section = by_xpath(browser, "//section[.//h2[normalize-space()='Email links']]")
    button = section.find_element("xpath", ".//button[normalize-space()='Use Tern for email links']")
    assert wait_until(lambda: button.is_displayed())
    browser.execute_script("navigator.registerProtocolHandler = (...args) => { window.registered = args; };")
    button.click()
    assert browser.execute_script("return window.registered") == ["mailto", "compose?mailto=%s"]
    assert wait_until(lambda: "confirm in your browser" in section.find_element("xpath", ".//*[@role='status']").text)
    assert axe_violations(browser) == []


def test_a_mailto_link_opens_the_composer_prefilled_and_sends_nothing(site):
    browser, base, home = site["browser"], site["base"], site["home"]
    link = ("mailto:bob@tern.test?cc=dave@tern.test&subject=Caf%C3%A9%20plans&body=Line%20one%0D%0ALine%20two"
            "&from=boss@example.org")
    browser.get(f"{base}/compose?mailto=" + urllib.parse.quote(link, safe=""))
    form = by_xpath(browser, "//form[@aria-labelledby='composer-title']")
    assert wait_until(lambda: [t.get_attribute("data-address") for t in browser.find_elements("xpath", "//ul[@aria-label='To recipients']/li")]
                      == ["bob@tern.test"])
    assert [t.get_attribute("data-address") for t in browser.find_elements("xpath", "//ul[@aria-label='Cc recipients']/li")] == ["dave@tern.test"]
    assert form.find_element("id", "compose-subject").get_attribute("value") == "Café plans"
    assert form.find_element("id", "compose-body").get_attribute("value").startswith("Line one\nLine two")
    assert "The link also tried to set from: ignored." in form.text
    assert axe_violations(browser) == []
    assert outbox(home) == [], "a link never sends by itself"

    hostile = "mailto:bob@tern.test?subject=Hi%0D%0ABcc:%20spy@example.net&body=x"
    browser.get(f"{base}/compose?mailto=" + urllib.parse.quote(hostile, safe=""))
    form = by_xpath(browser, "//form[@aria-labelledby='composer-title']")
    assert "This email link was not used" in form.text and "line break" in form.text
    assert form.find_element("id", "compose-subject").get_attribute("value") == ""
    assert browser.find_elements("xpath", "//ul[@aria-label='Bcc recipients']/li") == []


def test_the_handlers_cross_site_navigation_is_handed_on_and_nothing_else(site):
    port = site["port"]
    web = sign_in(port)
    link = 'mailto:bob@tern.test?subject="><script>alert(1)</script>'
    path = web.path("/compose?mailto=" + urllib.parse.quote(link, safe=""))
    response, body = http_request(port, "GET", path, {"Sec-Fetch-Site": "cross-site"})
    assert response.status == 200, body
    encoded = urllib.parse.quote(link, safe="-._~")
    assert f'<meta http-equiv="refresh" content="0; url=compose?mailto={encoded}">' in body, body
    assert "<script" not in body.replace("%3Cscript", "")
    assert response.getheader("Content-Security-Policy")
    # Anything else from another site is still refused.
    response, _ = http_request(port, "GET", web.path("/mail"), {"Sec-Fetch-Site": "cross-site", "Cookie": web.cookie})
    assert response.status == 403
    response, _ = http_request(port, "GET", path, {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"})
    assert response.status == 403
