#!/usr/bin/env python3
"""Issue 35: the time from "Continue" on the web app's "Add account" screen to the first 30 headers of the Inbox on
screen, for a demo-like account (alice with `make demo`'s 500 seeded messages), on loopback. Prints one JSON object.

Each run: an empty scratch home, `tern serve` (with its sync engine) on a free port, the test domain's autoconfig
document served over HTTPS by the test support's document server (certificate from the test CA, reached through
`TERN_DISCOVERY_RESOLVE`), Debian's Chromium (headless, selenium) signed in on the "Add account" screen, the form
filled (name, alice@tern.test, the test password, the test CA under "Edit server settings"). The clock starts in the
page just before the click on Continue (`performance.timeOrigin + performance.now()`) and stops in the Inbox page
two animation frames after its list holds 30 rows: discovery, the IMAP and SMTP checks, the account kept, the page
changed, the engine woken, the first page of headers fetched and the list redrawn from the change feed.

    scripts/bench/web_add_account.py [--tern .build/release/tern] [--runs 5] [--seed]

`--seed` runs `scripts/mailservers seed --user alice --count 500` first (what `make demo` does); the test servers must
be running (`scripts/mailservers start`).
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "SystemTests", "integration"))

from support.discovery import DocumentServer, client_config, signed_certificate  # noqa: E402
from support.servers import free_port  # noqa: E402

TOKEN = "bench-token-" + uuid.uuid4().hex


def mailserver_env():
    out = subprocess.run([os.path.join(ROOT, "scripts", "mailservers"), "env"], check=True, capture_output=True, text=True).stdout
    env = {}
    for line in out.splitlines():
        key, _, value = line.partition("=")
        env[key] = shlex.split(value)[0] if value else ""
    return env


def chromium():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    return driver


FIRST_PAGE = """
const done = arguments[arguments.length - 1];
function check() {
  if (document.querySelectorAll('#thread-list .thread-row').length >= 30) {
    requestAnimationFrame(() => requestAnimationFrame(() => done(performance.timeOrigin + performance.now())));
  } else {
    setTimeout(check, 5);
  }
}
check();
"""


def one_run(tern, servers, documents, driver):
    home = tempfile.mkdtemp(prefix="tern-bench-add-")
    port = free_port()
    env = dict(os.environ, TERN_HOME=home, TERN_SERVE_TOKEN=TOKEN, TERN_NO_BACKGROUND_PUSH="1",
               TERN_DISCOVERY_RESOLVE=documents.resolve("autoconfig.tern.test", "tern.test"), TERN_TOKEN_STORE="file")
    server = subprocess.Popen([tern, "serve", "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        server.stdout.readline()
        driver.get(f"http://127.0.0.1:{port}/?token={TOKEN}")
        for field, value in [("account-name", "demo"), ("account-email", "alice@tern.test"),
                             ("account-password", servers["TERN_TEST_PASSWORD"])]:
            driver.find_element("id", field).send_keys(value)
        driver.find_element("xpath", "//summary[normalize-space()='Edit server settings']").click()
        driver.find_element("id", "account-ca-file").send_keys(servers["TERN_TEST_CA"])
        started = driver.execute_script(
            "const t = performance.timeOrigin + performance.now();"
            "document.querySelector('#account-setup button[type=submit]').click(); return t;")
        deadline = time.monotonic() + 60
        while not driver.current_url.endswith("/mail") and time.monotonic() < deadline:
            time.sleep(0.005)
        shown = driver.execute_async_script(FIRST_PAGE)
        return shown - started
    finally:
        server.terminate()
        server.wait(timeout=10)
        subprocess.run(["rm", "-rf", home], check=False)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tern", default=os.path.join(ROOT, ".build", "release", "tern"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", action="store_true")
    arguments = parser.parse_args()
    servers = mailserver_env()
    if arguments.seed:
        subprocess.run([os.path.join(ROOT, "scripts", "mailservers"), "seed", "--user", "alice", "--count", "500"], check=True)
    scratch = tempfile.mkdtemp(prefix="tern-bench-cert-")
    certificate, key = signed_certificate(servers, scratch, ["tern.test", "autoconfig.tern.test"])
    documents = DocumentServer(certificate, key)
    documents.documents[("autoconfig.tern.test", "/mail/config-v1.1.xml")] = client_config(
        "127.0.0.1", servers["TERN_IMAPS_PORT"], "127.0.0.1", servers["TERN_SMTPS_PORT"])
    driver = chromium()
    try:
        times = [one_run(arguments.tern, servers, documents, driver) for _ in range(arguments.runs)]
    finally:
        driver.quit()
        documents.close()
    print(json.dumps({
        "runs": len(times), "continue_to_30_headers_ms": [round(t, 1) for t in times],
        "p50_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1),
    }))


if __name__ == "__main__":
    main()
