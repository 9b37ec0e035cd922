"""The web session (issue 32), attacked as another program on 127.0.0.1 would: the cookie is scoped to the process's
secret path, random per sign-in, refused by the next process and ended when idle; the token never reaches a log; a
redirect after a form goes nowhere but the app. Each test was red on the session of before (a `Path=/` cookie derived
from the token, the token printed on every first line, `/\\t/host` accepted as a way back)."""
import http.server
import os
import signal
import stat
import subprocess
import threading
import time
import urllib.parse
import uuid

import pytest

from support.browser import by_xpath, chromium
from support.servers import free_port
from support.tern import TERN
from support.waiting import wait_until
from support.web import SESSION_COOKIE, TOKEN, browser_sign_in, csrf_of, http_request, origin, sign_in, start_serve


class CookieRecorder(http.server.ThreadingHTTPServer):
    """Another program on 127.0.0.1, at a port of its own: records the path and Cookie header of every request, and sends
    the browser around — a page linking to itself, its `/`, `/mail`, `/s/` and a guessed secret path, and redirects to
    the same."""

    def __init__(self):
        self.seen = []
        guessed = f"/s/{uuid.uuid4().hex}/mail"
        self.links = ["/page", "/", "/mail", "/s/", guessed, "/redirect?to=/mail", f"/redirect?to={guessed}", "/redirect?to=/page"]
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                recorder.seen.append((self.path, self.headers.get("Cookie")))
                target = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("to")
                if self.path.startswith("/redirect") and target:
                    self.send_response(302)
                    self.send_header("Location", target[0])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                links = "".join(f'<li><a href="{link}">{link}</a></li>' for link in recorder.links)
                body = f"<!doctype html><title>Another program</title><h1>Another program</h1><ul>{links}</ul>".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.port = self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def cookies_seen(self):
        return [(path, cookie) for path, cookie in self.seen if cookie and f"{SESSION_COOKIE}=" in cookie]


@pytest.fixture()
def serve(tmp_path):
    """`tern serve --no-sync` over an empty store (TERN_HOME is `tmp_path`); each test may start more, on a port of its
    own or the same again. Those still running are stopped at the end."""
    started = []

    def start(port=None, env=None):
        port = port or free_port()
        process = start_serve(tmp_path, port, "--no-sync", env=env)
        started.append(process)
        return process, port
    yield start
    for process in started:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=10)


@pytest.fixture()
def browser():
    driver = chromium(offline=True, console_log=True, page_load_timeout=15)
    yield driver
    driver.quit()


def test_another_loopback_port_never_receives_the_session_cookie(serve, browser):
    """Cookies are scoped by host, not port: a `Path=/` cookie reached every program on 127.0.0.1. The cookie now names
    the process's secret path, which the other program does not know."""
    _, port = serve()
    web = sign_in(port)
    assert web.attributes["path"] == web.app != "/", web.set_cookie
    # Outside its path the session opens nothing: neither the app's old addresses at the root nor a guessed secret.
    for path in ("/mail", "/settings", "/events", f"/s/{uuid.uuid4().hex}/mail", "/s/mail"):
        assert http_request(port, "GET", path, {"Cookie": web.cookie})[0].status == 401, path
    assert web.request("GET", "/mail")[0].status == 200

    other = CookieRecorder()
    try:
        base = browser_sign_in(browser, port)
        by_xpath(browser, "//h2[@id='list-title']")
        assert [c["path"] for c in browser.get_cookies() if c["name"] == SESSION_COOKIE] == [web.app], browser.get_cookies()
        # Sent there directly, twice (typed, then again from its own page), then by each of its links and redirects.
        for _ in range(2):
            browser.get(f"{origin(other.port)}/")
            by_xpath(browser, "//h1[normalize-space()='Another program']")
        for link in other.links:
            browser.get(f"{origin(other.port)}/page")
            by_xpath(browser, f"//a[normalize-space()='{link}']").click()
            arrival = origin(other.port) + (link.split("?to=")[1] if link.startswith("/redirect") else link)
            assert wait_until(lambda: browser.current_url == arrival), (browser.current_url, arrival)
            by_xpath(browser, "//h1[normalize-space()='Another program']")
        paths = [path for path, _ in other.seen]
        assert len(paths) >= 2 + 2 * len(other.links) + 3 and any(path.startswith("/s/") and len(path) > 3 for path in paths), paths
        assert other.cookies_seen() == [], other.cookies_seen()
        # Tern still has its session (it was there to be sent) ...
        browser.get(f"{base}/mail")
        by_xpath(browser, "//h2[@id='list-title']")
        # ... and the browser does send it to any port that names the secret path: the path is what keeps it home.
        browser.get(f"{origin(other.port)}{web.app}mail")
        assert [path for path, _ in other.cookies_seen()] == [f"{web.app}mail"], other.seen
    finally:
        other.shutdown()
        other.server_close()


def test_a_cookie_of_an_earlier_process_is_refused_by_the_next_even_with_the_same_token(serve):
    first, port = serve()
    earlier = sign_in(port)
    assert earlier.request("GET", "/mail")[0].status == 200
    first.terminate()
    assert first.wait(timeout=10) == 0
    serve(port=port)  # the same TERN_SERVE_TOKEN, the same port
    assert http_request(port, "GET", earlier.path("/mail"), {"Cookie": earlier.cookie})[0].status == 401
    now = sign_in(port)
    assert now.app != earlier.app and now.cookie != earlier.cookie
    assert http_request(port, "GET", now.path("/mail"), {"Cookie": earlier.cookie})[0].status == 401
    assert now.request("GET", "/mail")[0].status == 200


def test_each_exchange_opens_a_session_of_its_own(serve):
    _, port = serve()
    one, two = sign_in(port), sign_in(port)
    assert one.app == two.app and one.cookie != two.cookie
    assert one.request("GET", "/mail")[0].status == 200 and two.request("GET", "/mail")[0].status == 200


def test_an_idle_session_ends_and_the_address_signs_in_again(serve, browser):
    _, port = serve(env={"TERN_SERVE_SESSION_IDLE_SECONDS": "2"})
    base = browser_sign_in(browser, port)
    by_xpath(browser, "//h2[@id='list-title']")
    # Settings has no change feed (which is meant to keep an open tab's session alive): nothing is asked for meanwhile.
    browser.get(f"{base}/settings")
    by_xpath(browser, "//h1[normalize-space()='Settings']")
    time.sleep(3)
    browser.refresh()
    by_xpath(browser, "//main//h1[normalize-space()='Unauthorized']")
    assert "tern serve --print-url" in browser.find_element("tag name", "main").text
    assert browser_sign_in(browser, port) == base
    by_xpath(browser, "//h2[@id='list-title']")


def test_the_token_reaches_no_log_and_print_url_names_the_running_address(serve, tmp_path):
    process, port = serve()  # start_serve reads the first line from a pipe: the address without the token
    env = dict(os.environ, TERN_HOME=str(tmp_path))
    printed = subprocess.run([str(TERN), "serve", "--print-url"], env=env, capture_output=True, text=True, timeout=20)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == f"http://127.0.0.1:{port}/?token={TOKEN}\n"
    address_file = tmp_path / "secrets" / "serve.json"
    assert stat.S_IMODE(address_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(address_file.parent.stat().st_mode) == 0o700
    assert sign_in(port).request("GET", "/mail")[0].status == 200  # the printed address signs in
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    output, errors = process.communicate(timeout=10)
    assert TOKEN not in output + errors
    assert not address_file.exists()
    after = subprocess.run([str(TERN), "serve", "--print-url"], env=env, capture_output=True, text=True, timeout=20)
    assert after.returncode != 0 and "not running" in after.stderr and TOKEN not in after.stdout + after.stderr, after


def browser_reading_of(location, page):
    """Where a browser goes for a Location header: tabs and line breaks removed first (the URL standard), then resolved
    against the page."""
    cleaned = "".join(character for character in location if character not in "\t\n\r").strip("\x00 ")
    return urllib.parse.urljoin(page, cleaned)


def test_a_redirect_after_a_form_never_leaves_the_app(serve):
    _, port = serve()
    web = sign_in(port)
    csrf = csrf_of(web.request("GET", "/mail")[1])
    page = f"{origin(port)}{web.app}mail"
    for target in ("/\t/evil.example", "/\t/evil.example/mail", "/\n/evil.example", "/\r\n/evil.example", "/ /evil.example",
                   "//evil.example", "/\\evil.example", "/\t\\evil.example", "https://evil.example/", "\t//evil.example",
                   "/\u200b/evil.example", "/%09/evil.example", "/\x00/evil.example"):
        # A form without script (no CSRF header, no JSON): "Delete draft?" with nothing to delete answers its way back.
        response, body = web.request("POST", "/compose/discard", {"Content-Type": "application/x-www-form-urlencoded"},
                                     urllib.parse.urlencode({"csrf": csrf, "return": target}))
        assert response.status == 303, (target, response.status, body)
        location = response.getheader("Location")
        assert location.startswith(web.app), (target, location)
        assert urllib.parse.urlsplit(browser_reading_of(location, page)).netloc == f"127.0.0.1:{port}", (target, location)
    # A way back inside the app is kept.
    response, _ = web.request("POST", "/compose/discard", {"Content-Type": "application/x-www-form-urlencoded"},
                              urllib.parse.urlencode({"csrf": csrf, "return": "/mail?folder=Archive"}))
    assert response.getheader("Location") == f"{web.app}mail?folder=Archive"
