"""Chromium for the web tests, finding and waiting in its pages, axe, and the sanitizer's vectors with the loopback
server that stands in for every remote host (SystemTests/vectors/xss-vectors.json, scripts/make_xss_vectors.py)."""
import http.server
import json
import threading

from support.tern import ROOT
from support.waiting import wait_until

VECTORS = json.loads((ROOT / "SystemTests" / "vectors" / "xss-vectors.json").read_text())


def chromium(*, window_size="1280,900", offline=False, console_log=False, page_load_timeout=None, extra_arguments=(),
             javascript=True):
    """Debian's Chromium, headless. `offline`: every host but 127.0.0.1 resolves nowhere, so a request leaving for the
    internet fails instead of leaving. `console_log`: the page's console is kept for `get_log("browser")`.
    `javascript=False`: the pages' scripts do not run (progressive enhancement: every action as a plain form)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", *extra_arguments]
    if window_size:
        arguments.append(f"--window-size={window_size}")
    if offline:
        arguments.append("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
    for argument in arguments:
        options.add_argument(argument)
    if console_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    if page_load_timeout:
        driver.set_page_load_timeout(page_load_timeout)
    return driver


def by_xpath(driver, xpath, timeout=5):
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, timeout).until(lambda d: d.find_element("xpath", xpath))


# The page at rest for Assist: no suggested replies still being asked for (FR-ED-02: they arrive after the
# conversation) and their fade-in over (colours are read once they are opaque). Other animations, such as a toast's
# countdown, are part of the state being checked.
SETTLED = """
  if (document.querySelector('[data-assist-replies]')) return false;
  // Entry animations fade in from transparent: axe reads a half-faded toast's text as low contrast.
  return [...document.querySelectorAll('.smart-replies, .toast')].every(e => { getComputedStyle(e).opacity; return e.getAnimations().length === 0; });
"""


def axe_violations(driver):
    from selenium_axe_python import Axe
    wait_until(lambda: driver.execute_script(SETTLED), timeout=10)
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    return [(v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in results["violations"]]


def open_thread_by_name(browser, site, subject_words):
    browser.get(f"{site['base']}/mail")
    link = by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, '{subject_words}')]")
    link.click()
    by_xpath(browser, f"//main//h2[contains(., '{subject_words}')]")


class Recorder(http.server.BaseHTTPRequestHandler):
    """Serves the pages in `pages` under /page/; any other request is recorded (when its server `records`) and
    answered 404."""
    requests = []
    pages = {}

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.startswith("/page/"):
            body = self.pages.get(self.path, "").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            if self.server.records:
                Recorder.requests.append(self.path)
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    do_POST = do_GET
    do_HEAD = do_GET


def serve_recorder(records=False):
    """`records`: the stand-in for remote hosts; the page server's own requests are not counted."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    server.records = records
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def field(driver, label):
    """The form control whose label reads `label`."""
    return by_xpath(driver, f"//*[@id=//label[normalize-space()='{label}']/@for]")


def fill(driver, label, value):
    """Types `value` into the control labelled `label`, replacing what it held."""
    control = field(driver, label)
    control.clear()
    control.send_keys(value)
