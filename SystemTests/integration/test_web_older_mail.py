"""FR-SYNC-01 step 5 in the web app (issue 34): older mail of a server folder is fetched when the end of the list
scrolls into view, as the store's own pages are, and once the folder's whole history is stored the list's end says
so and offers nothing more."""
import time
import urllib.parse
import uuid

from support.accounts import NO_SMTP, add_account
from support.browser import chromium
from support.messages import fill_folder
from support.servers import free_port
from support.tern import json_of, tern
from support.web import browser_sign_in, start_serve

USER = "dave"


def test_older_mail_loads_as_the_list_end_scrolls_into_view_until_the_folder_starts(servers, dave_server, tmp_path):
    folder = f"Scroll {uuid.uuid4().hex[:8]}"
    fill_folder(servers, dave_server, folder, 160, 2)
    home = tmp_path
    add_account(home, servers, USER, "--bodies", "none", smtp=NO_SMTP)
    port, driver, server = free_port(), None, None
    try:
        assert tern(home, "settings", "set", "catch-up", "paused").returncode == 0
        assert tern(home, "sync", USER).returncode == 0
        stored = {f["path"]: f["messageCount"] for f in json_of(home, "folders")}[folder]
        assert 0 < stored < 160, stored
        server = start_serve(home, port, "--no-sync")
        driver = chromium()
        base = browser_sign_in(driver, port)
        driver.get(f"{base}/mail?" + urllib.parse.urlencode({"account": USER, "folder": folder}))
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            driver.execute_script("const pane = document.getElementById('list-pane'); pane.scrollTop = pane.scrollHeight;")
            footer = driver.execute_script("return document.getElementById('list-footer')?.textContent ?? ''")
            if "No more conversations." in footer:
                break
            time.sleep(0.5)
        else:
            raise AssertionError(f"the list never reached the folder's start: {footer!r}")
        assert not driver.find_elements("xpath", "//button[normalize-space()='Load older mail from the server']")
        assert {f["path"]: f["messageCount"] for f in json_of(home, "folders")}[folder] == 160
        rows = driver.find_elements("xpath", "//ul[@aria-labelledby='list-title']/li")
        assert len(rows) == 160, len(rows)
    finally:
        if driver:
            driver.quit()
        if server:
            server.terminate()
            server.wait(timeout=10)
        client = dave_server.imap()
        from support.imap import quote
        client.delete(quote(folder))
        client.logout()
