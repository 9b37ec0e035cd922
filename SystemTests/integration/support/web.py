"""What the tests of `tern serve` share: starting it, and signing in as a browser does (issue 32).

The printed address `http://127.0.0.1:PORT/?token=T` is exchanged for a session cookie and a redirect into the app,
which each process serves under a secret path of its own, `/s/<32 hex>/`. A test learns that path from the exchange,
as the browser does, and asks for the app's pages under it: `base` is `http://127.0.0.1:PORT/s/<hex>` (no trailing
slash), so `f"{base}/mail"` is the list page."""
import dataclasses
import http.client
import os
import re
import subprocess
import uuid

from support.tern import TERN

TOKEN = "web-test-token-" + uuid.uuid4().hex
SESSION_COOKIE = "tern_session"


def origin(port):
    return f"http://127.0.0.1:{port}"


def start_serve(home, port, *extra, token=TOKEN, env=None):
    """`tern serve` on `port`, once it listens. Its stdout is a pipe, as a service's journal is: the first line names the
    address without the token (issue 32)."""
    environment = dict(os.environ, TERN_HOME=str(home), TERN_SERVE_TOKEN=token, TERN_NO_BACKGROUND_PUSH="1", **(env or {}))
    process = subprocess.Popen([str(TERN), "serve", "--port", str(port), *extra], env=environment, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    assert line == f"Tern is running at {origin(port)}/ (sign in with the address 'tern serve --print-url' prints)\n", \
        line + process.stderr.read()
    return process


@dataclasses.dataclass(frozen=True)
class SignIn:
    """One token exchange: its session and the app's secret path."""
    port: int
    cookie: str       # `tern_session=<value>`, as a request sends it
    app: str          # `/s/<32 hex>/`
    set_cookie: str   # the whole Set-Cookie header, attributes included

    @property
    def attributes(self):
        """The cookie's attributes by lower-case name (`path`, `samesite`, `httponly`…), in whatever order they came."""
        pairs = [part.strip().partition("=") for part in self.set_cookie.split(";")[1:]]
        return {name.lower(): value for name, _, value in pairs}

    @property
    def base(self):
        return origin(self.port) + self.app.rstrip("/")

    def path(self, app_path):
        """An app path (`/mail?…`) as the browser asks for it (`/s/<hex>/mail?…`)."""
        return self.app + app_path.lstrip("/")

    def request(self, method, app_path, headers=None, body=None):
        """The app path under the base, with this session's cookie."""
        return http_request(self.port, method, self.path(app_path), {"Cookie": self.cookie, **(headers or {})}, body)


def http_request(port, method, path, headers=None, body=None, host=None):
    """Raw HTTP as sent (`path` untouched): the response and its body as text."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest(method, path, skip_host=True)
        connection.putheader("Host", host or f"127.0.0.1:{port}")
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        if body is not None:
            body = body if isinstance(body, bytes) else body.encode()
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return response, response.read().decode(errors="replace")
    finally:
        connection.close()


def sign_in(port, token=TOKEN, at="/", cookie=None):
    """The printed address opened (`at` any path: the token is exchanged wherever it is shown): a 303 into the app's
    list under the secret path, and a new session."""
    response, _ = http_request(port, "GET", f"{at}?token={token}", {"Cookie": cookie} if cookie else None)
    location, set_cookie = response.getheader("Location"), response.getheader("Set-Cookie")
    assert response.status == 303, (response.status, location)
    match = re.fullmatch(r"(/s/[0-9a-f]{32}/)mail", location or "")
    assert match, location
    assert set_cookie and set_cookie.startswith(f"{SESSION_COOKIE}="), set_cookie
    return SignIn(port=port, cookie=set_cookie.split(";")[0], app=match.group(1), set_cookie=set_cookie)


def app_base(port, token=TOKEN):
    """`http://127.0.0.1:PORT/s/<hex>`: where the server on `port` serves the app (its exchange opens a session)."""
    return sign_in(port, token).base


def browser_sign_in(driver, port, token=TOKEN):
    """The printed address opened in the browser: it lands on the list under the secret path, which is returned as the
    app's base (`http://127.0.0.1:PORT/s/<hex>`)."""
    driver.get(f"{origin(port)}/?token={token}")
    match = re.fullmatch(re.escape(origin(port)) + r"(/s/[0-9a-f]{32})/mail", driver.current_url)
    assert match, driver.current_url
    return origin(port) + match.group(1)


def csrf_of(page):
    return page.split('name="csrf-token" content="')[1].split('"')[0]


def request(site, method, path, headers=None, body=None, host=None):
    """An app path (`/mail`) is sent under the server's secret base (`site["app"]`), as the app's own links are; the
    token exchange (`/?token=`), the assets and a path already under `/s/` are sent as they are."""
    if not path.startswith(("/?token=", "/assets/", "/s/")):
        path = site["app"] + path[1:]
    return http_request(site["port"], method, path, headers, body, host)


def get(app, address):
    """An address the page names (as the browser resolved it: under the app's secret base), asked for with the
    fixture's session (`app["web"]`)."""
    path = address.removeprefix(origin(app["port"]))
    assert path.startswith(app["web"].app), address
    connection = http.client.HTTPConnection("127.0.0.1", app["port"], timeout=30)
    connection.request("GET", path, headers={"Cookie": app["web"].cookie})
    response = connection.getresponse()
    return response, response.read()
