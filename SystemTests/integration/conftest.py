"""Fixtures for tests against the real test mail servers started by scripts/mailservers. Helpers are in `support`.

A module's own fixture of the same name overrides one of these for that module: `browser` in test_web_app.py,
test_web_session.py and test_sanitizer_browser.py, and `app` in test_web_drafts.py, are sites of their own, not copies
of the acceptance site below; `account_options` in test_compose.py adds an alias to `home`'s account."""
import os
import ssl
import subprocess
import sys

import pytest

from support.accounts import ACCEPTANCE_USER, add_account
from support.browser import chromium
from support.discovery import DNSServer
from support.imap import LayoutServer, imap_for, logout_quietly
from support.servers import free_port, mailserver_env
from support.tern import MAILSERVERS, ROOT
from support.web import browser_sign_in, sign_in, start_serve

# The project's own tools the tests use (the fault proxy).
sys.path.insert(0, str(ROOT / "scripts"))

# The ports `scripts/mailservers` listens on, each moved by the worker's number when pytest-xdist runs several.
SERVER_PORTS = ("TERN_IMAP_PORT", "TERN_IMAPS_PORT", "TERN_SMTP_PORT", "TERN_SUBMISSION_PORT", "TERN_SMTPS_PORT",
                "TERN_OAUTH_PORT")


def worker_number():
    """0 without pytest-xdist and for its first worker (`gw0`), N for `gwN`."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0


def pytest_configure(config):
    """`make test` runs the system tests in two pytest-xdist workers, a file at a time each (`--dist loadfile`), to keep
    the suite within CI's half hour on two cores. Tests stop and restart the servers and count their connections, so
    workers never share them: the first uses the servers `make test` started, each other worker starts a set of its
    own beside them (its own state directory, every port moved by its number) and stops it at the end."""
    number = worker_number()
    if number == 0:
        return
    resolved = mailserver_env()
    os.environ["TERN_MAILSERVERS_DIR"] = f"{resolved['TERN_MAILSERVERS_DIR']}-gw{number}"
    for name in SERVER_PORTS:
        os.environ[name] = str(int(resolved[name]) + number)
    for command in ("reset", "start"):
        done = subprocess.run([str(MAILSERVERS), command], capture_output=True, text=True)
        if done.returncode != 0:
            raise pytest.UsageError(f"worker gw{number}: scripts/mailservers {command} failed:\n{done.stderr}")
    config.own_mailservers = True


def pytest_unconfigure(config):
    if getattr(config, "own_mailservers", False):
        subprocess.run([str(MAILSERVERS), "stop"], check=False, capture_output=True)


@pytest.fixture(scope="session")
def servers():
    """The running test servers (`make test` starts them; started here when run alone)."""
    env = mailserver_env()
    status = subprocess.run([str(MAILSERVERS), "status"], capture_output=True, text=True).stdout
    if "dovecot: running" not in status or "postfix: running" not in status:
        subprocess.run([str(MAILSERVERS), "start"], check=True)
    return env


@pytest.fixture()
def tls_context(servers):
    return ssl.create_default_context(cafile=servers["TERN_TEST_CA"])


@pytest.fixture()
def account_options():
    """More `tern account add` options for the `home` fixture's account; a module overrides this (with an alias, say)."""
    return ()


@pytest.fixture()
def home(servers, tmp_path, request, account_options):
    """A Tern home (`tmp_path`) with an account for the module's `USER` on the test servers."""
    add_account(tmp_path, servers, request.module.USER, *account_options)
    return tmp_path


def imap_session(servers, tls_context, user):
    imap = imap_for(servers, tls_context, user)
    yield imap
    logout_quietly(imap)


@pytest.fixture()
def alice(servers, tls_context):
    """Another client's IMAP session of alice (and of bob and dave below)."""
    yield from imap_session(servers, tls_context, "alice")


@pytest.fixture()
def bob(servers, tls_context):
    yield from imap_session(servers, tls_context, "bob")


@pytest.fixture()
def dave(servers, tls_context):
    yield from imap_session(servers, tls_context, "dave")


@pytest.fixture()
def dave_server(servers):
    """The test Dovecot as a Gmail-layout server of dave's."""
    return LayoutServer("gmail", int(servers["TERN_IMAPS_PORT"]), servers["TERN_TEST_CA"], servers["TERN_TEST_PASSWORD"])


# ---- The web acceptance site (test_web_acceptance.py, test_web_edge_cases.py) -----------------------------------

@pytest.fixture(scope="module")
def app(servers, tmp_path_factory):
    """carol's account, not synced, under `tern serve --no-sync`, with a signed-in session and an IMAP session."""
    home = tmp_path_factory.mktemp("acceptance-home")
    add_account(home, servers, ACCEPTANCE_USER)
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), ACCEPTANCE_USER)
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    web = sign_in(port)
    yield {"home": home, "base": web.base, "web": web, "port": port, "imap": imap, "servers": servers}
    server.terminate()
    server.wait(timeout=10)
    imap.logout()


@pytest.fixture(scope="module")
def browser(app):
    """Chromium signed in to `app`."""
    driver = chromium(page_load_timeout=15)
    assert browser_sign_in(driver, app["port"]) == app["base"]
    yield driver
    driver.quit()


@pytest.fixture()
def dns():
    """The test's DNS server (SRV, MX, A records the test plants), for account discovery."""
    server = DNSServer()
    yield server
    server.close()


@pytest.fixture()
def empty_site(servers, tmp_path):
    """`tern serve --no-sync` on an empty home (issue 35's add-account screens); Chromium signed in."""
    home = tmp_path / "home"
    home.mkdir()
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    driver = chromium(page_load_timeout=20)
    base = browser_sign_in(driver, port)
    yield {"home": home, "base": base, "browser": driver}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)
