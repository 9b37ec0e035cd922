"""The Email Detail edge cases in the web app (issue 17; E-01..E-12 of 004_1c5eff32dbb0c638.txt that a browser
shows; E-10 and E-11, a refusal after the retries, are tested on the use cases and the CLI where the schedule can
be shortened)."""
import os
import sqlite3
import ssl
import subprocess
import time
import uuid

from support.accounts import ACCEPTANCE_USER, add_account
from support.browser import by_xpath, chromium, open_thread_by_name
from support.imap import imap_for
from support.messages import acceptance_message as message, plant_thread
from support.servers import free_port
from support.tern import TERN, sync
from support.waiting import wait_until
from support.web import browser_sign_in, get, start_serve

USER = ACCEPTANCE_USER


def test_e01_a_120_message_thread_opens_on_25_and_shows_earlier_keeping_the_place(browser, app):
    stamp, _ = plant_thread(app["servers"], app["imap"], 120)
    sync(app["home"], USER)
    open_thread_by_name(browser, app, f"Thread {stamp}")
    assert len(browser.find_elements("xpath", "//main//article")) == 25
    first = browser.find_element("xpath", "//main//article[1]")
    top_before = browser.execute_script("return arguments[0].getBoundingClientRect().top", first)
    by_xpath(browser, "//main//a[starts-with(normalize-space(), 'Show earlier messages (95)')]").click()
    assert wait_until(lambda: len(browser.find_elements("xpath", "//main//article")) == 50)
    top_after = browser.execute_script("return arguments[0].getBoundingClientRect().top", first)
    assert abs(top_after - top_before) < 5, "the message read before stays where it was"
    by_xpath(browser, "//main//a[starts-with(normalize-space(), 'Show earlier messages (70)')]")


def test_e02_e03_malformed_and_html_only_bodies_render_and_snippets_come_from_the_html(browser, app):
    stamp = uuid.uuid4().hex[:10]
    mail = message(f"Broken {stamp}", html="<div><p>Unclosed <b>bold <table><tr><td>cell &amp amp; &#x110000; <i>end")
    app["imap"].append("INBOX", "", None, mail)
    empty = message(f"Empty html {stamp}", text="The plain part says this.", html="<script>only()</script><style>p{}</style>")
    app["imap"].append("INBOX", "", None, empty)
    only = message(f"Only html {stamp}", text="x").replace(b'Content-Type: text/plain; charset="utf-8"', b'Content-Type: text/html; charset="utf-8"')
    only = only.replace(b"\nx\n", b"\n<p>Hello from <b>HTML only</b></p>\n")
    app["imap"].append("INBOX", "", None, only)
    sync(app["home"], USER)
    open_thread_by_name(browser, app, f"Broken {stamp}")
    _, body = get(app, by_xpath(browser, "//main//article//iframe").get_attribute("src"))
    assert b"cell" in body and b"<b>bold" in body
    open_thread_by_name(browser, app, f"Empty html {stamp}")
    _, body = get(app, by_xpath(browser, "//main//article//iframe").get_attribute("src"))
    assert b"The plain part says this." in body, "sanitized to nothing: the plain body instead"
    browser.get(f"{app['base']}/mail")
    row = by_xpath(browser, f"//ul[@aria-labelledby='list-title']//li[.//a[contains(@aria-label, 'Only html {stamp}')]]")
    assert "Hello from HTML only" in row.text


def test_e04_a_large_dangerous_file_on_a_metered_connection_gets_both_warnings(browser, app):
    subprocess.run([str(TERN), "settings", "set", "metered", "yes"], env=dict(os.environ, TERN_HOME=str(app["home"])), check=True)
    try:
        stamp = uuid.uuid4().hex[:10]
        app["imap"].append("INBOX", "", None, message(f"Installer {stamp}", attachments=[
            ("installer.exe", "application", "octet-stream", b"MZ" + b"\0" * (52 * 1024 * 1024))]))
        sync(app["home"], USER)
        open_thread_by_name(browser, app, f"Installer {stamp}")
        by_xpath(browser, "//li[contains(., 'installer.exe')]//button[normalize-space()='Download']").click()
        dialog = by_xpath(browser, "//dialog[@open]")
        paragraphs = [p.text for p in dialog.find_elements("xpath", ".//p")]
        assert paragraphs == ["This file is a Windows executable.", "This attachment is 52 MB. Download on cellular?"]
        dialog.find_element("xpath", ".//button[normalize-space()='Cancel']").click()
    finally:
        subprocess.run([str(TERN), "settings", "set", "metered", "auto"], env=dict(os.environ, TERN_HOME=str(app["home"])), check=True)


def test_e07_cid_images_are_placeholders_not_trackers(browser, app):
    stamp = uuid.uuid4().hex[:10]
    app["imap"].append("INBOX", "", None, message(f"Inline {stamp}", html='<p>Logo:</p><img src="cid:logo@x" alt="logo" width="1" height="1">'))
    sync(app["home"], USER)
    open_thread_by_name(browser, app, f"Inline {stamp}")
    assert not browser.find_elements("xpath", "//main//summary[contains(., 'tracker')]")
    _, body = get(app, by_xpath(browser, "//main//article//iframe").get_attribute("src"))
    assert b"tern-inline-image" in body and b"cid:" not in body


def test_e09_twelve_levels_of_quotes_fold_and_open_without_clipping(browser, app):
    stamp = uuid.uuid4().hex[:10]
    nested = "latest words"
    for level in range(12):
        nested = f"reply {level}<blockquote type=\"cite\">{nested}</blockquote>"
    app["imap"].append("INBOX", "", None, message(f"Deep {stamp}", html=f"<p>Top.</p>{nested}"))
    sync(app["home"], USER)
    open_thread_by_name(browser, app, f"Deep {stamp}")
    frame = by_xpath(browser, "//main//article//iframe")
    browser.switch_to.frame(frame)
    try:
        summary = browser.find_element("xpath", "(//summary[normalize-space()='Show quoted text'])[1]")
        assert not browser.find_element("xpath", "(//blockquote)[last()]").is_displayed(), "collapsed by default"
        summary.click()
        deepest = browser.find_element("xpath", "(//blockquote)[last()]")
        assert deepest.is_displayed() and "latest words" in deepest.text
        assert browser.execute_script("return document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1") is not False
    finally:
        browser.switch_to.default_content()


def test_e12_a_trusted_sender_loads_remote_images_and_still_strips_trackers(browser, app):
    stamp = uuid.uuid4().hex[:10]
    html = ('<img src="https://pixel.example/t.gif" width="1" height="1"><img src="https://cdn.example/banner.png" alt="banner">')
    app["imap"].append("INBOX", "", None, message(f"Trusted {stamp}", html=html, sender=f"News <news-{stamp}@example.net>"))
    sync(app["home"], USER)
    open_thread_by_name(browser, app, f"Trusted {stamp}")
    by_xpath(browser, f"//main//button[normalize-space()='Always load from news-{stamp}@example.net']").click()
    by_xpath(browser, f"//main//p[contains(., 'Remote images load for news-{stamp}@example.net')]")
    open_thread_by_name(browser, app, f"Trusted {stamp}")
    _, body = get(app, by_xpath(browser, "//main//article//iframe").get_attribute("src"))
    assert b"https://cdn.example/banner.png" in body and b"pixel.example" not in body
    by_xpath(browser, "//main//summary[contains(., '1 tracker blocked')]")


def test_e05_offline_cached_bodies_show_and_uncached_say_so(servers, tmp_path):
    import json
    home = tmp_path / "offline-home"
    add_account(home, servers, USER)
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    cached, _ = plant_thread(servers, imap, 1)
    uncached, _ = plant_thread(servers, imap, 1)
    imap.logout()
    env = dict(os.environ, TERN_HOME=str(home))
    subprocess.run([str(TERN), "sync", USER, "--bodies", "none"], env=env, check=True, capture_output=True, timeout=120)

    def thread_of(stamp):
        return json.loads(subprocess.run([str(TERN), "search", stamp, "--json"], env=env, check=True, capture_output=True, text=True).stdout)[0]["threadId"]
    cached_thread, uncached_thread = thread_of(cached), thread_of(uncached)
    # One body is cached by opening its thread while the server is there; then the server is out of reach.
    subprocess.run([str(TERN), "thread", f"t{cached_thread}"], env=env, check=True, capture_output=True, timeout=60)
    with sqlite3.connect(home / "tern.sqlite") as db:
        db.execute("UPDATE account SET imapPort = 1")
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    driver = chromium()
    try:
        base = browser_sign_in(driver, port)
        driver.get(f"{base}/mail?thread={cached_thread}")
        assert by_xpath(driver, "//main//article//iframe"), "the cached body is shown offline"
        driver.get(f"{base}/mail?thread={uncached_thread}")
        by_xpath(driver, "//main//p[contains(., 'offline. Messages stored on this computer are shown.')]", timeout=20)
        by_xpath(driver, "//main//p[normalize-space()='Message body not available offline']")
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=10)


def test_e10_mark_read_refused_by_the_server_reverts_and_says_so(browser, app):
    """The folder is deleted on the server by another client after Tern synced it: marking its message read is
    refused, the message is unread again, and the page says "Couldn't mark as read. Tap to retry."."""
    folder = f"Projects-{uuid.uuid4().hex[:8]}"
    imap = app["imap"]
    imap.create(folder)
    stamp = uuid.uuid4().hex[:10]
    imap.append(folder, "", None, message(f"Doomed {stamp}"))
    sync(app["home"], USER)
    browser.get(f"{app['base']}/mail?account={USER}&folder={folder}")
    link = by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Doomed {stamp}')]")
    imap.delete(folder)
    link.click()
    toast = by_xpath(browser, "//div[@id='toasts']//div[contains(., \"Couldn't mark as read. Tap to retry.\")]", timeout=20)
    assert toast.find_element("xpath", ".//button[normalize-space()='Retry']")
    browser.get(f"{app['base']}/mail?account={USER}&folder={folder}")
    row = by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Doomed {stamp}')]")
    assert row.get_attribute("aria-label").startswith("Unread."), "reverted to unread"


def test_e11_an_archive_refused_after_going_back_is_undone_and_says_so(browser, servers, tmp_path):
    """tern serve with its engine: the archive reaches the server when the undo window ends and is refused (the
    folder was deleted by another client): the conversation comes back, the page goes back into it (E-11 "Cancel
    back-navigation") and says "Couldn't archive."."""
    home = tmp_path / "e11-home"
    add_account(home, servers, USER)
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    folder = f"Archive-me-{uuid.uuid4().hex[:8]}"
    imap.create(folder)
    stamp = uuid.uuid4().hex[:10]
    imap.append(folder, "", None, message(f"Refused {stamp}"))
    sync(home, USER)
    port = free_port()
    server = start_serve(home, port)
    try:
        base = browser_sign_in(browser, port)
        browser.get(f"{base}/mail?account={USER}&folder={folder}")
        by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Refused {stamp}')]").click()
        by_xpath(browser, "//main//div[@role='toolbar']")
        imap.delete(folder)
        by_xpath(browser, "//div[@role='toolbar']//button[normalize-space()='Archive']").click()
        # The engine's first sync of a full mailbox runs meanwhile: the store may be busy for a while.
        assert wait_until(lambda: "thread=" not in browser.current_url, 60), browser.find_element("id", "toasts").text
        toast = by_xpath(browser, "//div[@id='toasts']//div[contains(., \"Couldn't archive. Tap to retry.\")]", timeout=60)
        assert toast.find_element("xpath", ".//button[normalize-space()='Retry']")
        assert wait_until(lambda: browser.find_elements(
            "xpath", f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Refused {stamp}')]"), 10), "the conversation is back"
        # E-11 "Cancel back-navigation": the person is taken back into the conversation they left.
        assert wait_until(lambda: "thread=" in browser.current_url, 10), browser.current_url
        by_xpath(browser, f"//main//h2[contains(., 'Refused {stamp}')]")
    finally:
        server.terminate()
        server.wait(timeout=10)
        imap.logout()


def test_new_mail_from_idle_appears_without_reload(browser, servers, tmp_path):
    """tern serve with its engine watching the Inbox (IDLE): a message delivered through Postfix appears in the open
    list, and the toast says so, with no reload (server-sent events from the change feed)."""
    import smtplib
    home = tmp_path / "live-home"
    add_account(home, servers, USER)
    sync(home, USER)
    port = free_port()
    server = start_serve(home, port)
    try:
        base = browser_sign_in(browser, port)
        by_xpath(browser, "//h2[@id='list-title']")
        browser.execute_script("window.__sameDocument = true")
        time.sleep(3)  # the engine's first sync and IDLE
        stamp = uuid.uuid4().hex[:10]
        with smtplib.SMTP("127.0.0.1", int(servers["TERN_SMTP_PORT"]), timeout=30) as smtp:
            smtp.sendmail("news@example.org", [f"{USER}@tern.test"], message(f"Live {stamp}"))
        by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, 'Live {stamp}')]", timeout=30)
        assert browser.execute_script("return window.__sameDocument === true"), "no reload"
        assert wait_until(lambda: "new message" in browser.find_element("id", "toasts").text, 10)
    finally:
        server.terminate()
        server.wait(timeout=10)
