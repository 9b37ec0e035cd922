"""Assist (issue 19, FR-ED-02, FR-COMP-03, AC-U-11) against the real test servers: `tern summarize`, `tern suggest` and
`tern thread` with the built-in provider; the summary cache recomputed when the thread gains a message; the optional
OpenAI-compatible endpoint through a small server these tests start (well-behaved, slow, failing, malformed, hostile with
markup and huge bodies, redirecting, and off this machine), each failure hiding the sections; and the web app in Chromium:
the summary and the chips appear, a chip opens the composer with its text, the composer's chips insert theirs, a failing
provider leaves no trace, and axe-core finds nothing in those states."""
import json
import os
import ssl
import subprocess
import threading
import time
import uuid
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from support.accounts import add_account
from support.browser import axe_violations, by_xpath, chromium
from support.imap import imap_for
from support.messages import raw_message
from support.servers import free_port
from support.tern import TERN, tern
from support.waiting import wait_until
from support.web import browser_sign_in, start_serve

USER = "dave"


# Mail to dave from Priya, five minutes ago unless it says otherwise.
mail = partial(raw_message, f"{USER}@tern.test", sender="Priya Nair <priya@example.org>", minutes_ago=5)


def thread_id(home, stamp):
    threads = json.loads(tern(home, "threads", "--json", "--limit", "200").stdout)
    rows = threads["threads"] if isinstance(threads, dict) else threads
    return next(row["id"] for row in rows if stamp in row["subject"])


@pytest.fixture(scope="module")
def mailbox(servers, tmp_path_factory):
    home = tmp_path_factory.mktemp("assist-home")
    add_account(home, servers, USER)
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), USER)
    stamp = uuid.uuid4().hex[:8]
    first_id = f"<invoice-{stamp}@example.org>"
    imap.append("INBOX", "", None, mail(
        f"Invoice {stamp} for approval",
        "Hi Dave,\n\nAttached is invoice 2026-118 from Brightside Design, 2,340 EUR. Can you approve it so it goes out in this "
        "week's payment run on Friday?\n\nBest,\nPriya\n", message_id=first_id, minutes_ago=30))
    imap.append("INBOX", "", None, mail(
        f"Weekly digest {stamp}", "This week: three new articles about gardening.\n\nUnsubscribe: https://news.example.org/u\n",
        sender="News <news@example.org>", headers={"List-Unsubscribe": "<https://news.example.org/u>"}))
    # A person's question through a mailing list: only its List-Id header (kept at sync) says no reply is expected.
    imap.append("INBOX", "", None, mail(
        f"Team lunch {stamp}", "Hi all,\n\nCan everyone bring a dish on Friday at 12:30?\n\nSam\n",
        sender="Sam Ortiz <sam@example.org>", headers={"List-Id": "Team <team.example.org>"}))
    subprocess.run([str(TERN), "sync", USER], env=dict(os.environ, TERN_HOME=str(home)), check=True, capture_output=True, timeout=180)
    yield {"home": home, "imap": imap, "stamp": stamp, "first": first_id, "servers": servers}
    imap.logout()


def test_summary_and_suggestions_from_the_builtin_provider(mailbox):
    home, stamp = mailbox["home"], mailbox["stamp"]
    invoice = thread_id(home, f"Invoice {stamp}")
    summary = json.loads(tern(home, "summarize", f"t{invoice}", "--json").stdout)["summary"]
    assert summary["provider"] == "builtin"
    assert "2,340 EUR" in summary["text"] and "Hi Dave" not in summary["text"] and "Priya" not in summary["text"].split()[-1:]
    replies = json.loads(tern(home, "suggest", f"t{invoice}", "--json").stdout)["suggestions"]
    assert 1 <= len(replies) <= 3
    assert {reply["intent"] for reply in replies} <= {"question", "actionRequest", "scheduling"}
    text = tern(home, "suggest", f"t{invoice}").stdout
    assert text.startswith("1. ")
    # Bulk mail (List-Unsubscribe) gets a summary but no suggestion (FR-COMP-03).
    digest = thread_id(home, f"Weekly digest {stamp}")
    assert json.loads(tern(home, "suggest", f"t{digest}", "--json").stdout)["suggestions"] == []
    assert tern(home, "suggest", f"t{digest}").stdout == ""
    team = thread_id(home, f"Team lunch {stamp}")
    assert json.loads(tern(home, "suggest", f"t{team}", "--json").stdout)["suggestions"] == []
    # tern thread carries the summary (text and JSON).
    shown = json.loads(tern(home, "thread", f"t{invoice}", "--json", "--keep-unread").stdout)
    assert shown["summary"]["text"] == summary["text"]
    assert "Summary: " in tern(home, "thread", f"t{invoice}", "--keep-unread").stdout
    assert tern(home, "summarize", "t999999").returncode != 0


def test_the_summary_is_cached_and_recomputed_when_the_thread_grows(mailbox):
    home, stamp = mailbox["home"], mailbox["stamp"]
    invoice = thread_id(home, f"Invoice {stamp}")
    first = json.loads(tern(home, "summarize", f"t{invoice}", "--json").stdout)["summary"]
    time.sleep(1.1)  # dates are written to the second
    again = json.loads(tern(home, "summarize", f"t{invoice}", "--json").stdout)["summary"]
    assert again["date"] == first["date"], "the cached summary is answered without recomputing"
    mailbox["imap"].append("INBOX", "", None, mail(
        f"Re: Invoice {stamp} for approval", "Approved, it will be paid on Friday 14 November.\n\nSam",
        sender="Sam Ortiz <sam@example.org>", in_reply_to=mailbox["first"], minutes_ago=1))
    subprocess.run([str(TERN), "sync", USER], env=dict(os.environ, TERN_HOME=str(home)), check=True, capture_output=True, timeout=180)
    grown = json.loads(tern(home, "summarize", f"t{invoice}", "--json").stdout)["summary"]
    assert grown["date"] != first["date"] and "14 November" in grown["text"]
    tern(home, "settings", "set", "assist", "off")
    try:
        off = json.loads(tern(home, "summarize", f"t{invoice}", "--json").stdout)
        assert off["summary"] is None
        assert json.loads(tern(home, "suggest", f"t{invoice}", "--json").stdout)["suggestions"] == []
    finally:
        tern(home, "settings", "set", "assist", "builtin")


class ModelServer:
    """A small OpenAI-compatible server: `mode` decides how it answers; every request is recorded."""

    def __init__(self):
        self.mode = "ok"
        self.requests = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                server.requests.append(("GET", self.path, b""))
                self.answer(200, {"object": "list", "data": [{"id": "tiny-test-model", "object": "model"}]})

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                server.requests.append(("POST", self.path, body))
                prompt = json.loads(body)["messages"][0]["content"]
                wants_replies = "JSON array" in prompt
                mode = server.mode
                if mode == "slow" or (mode == "slow-summary" and not wants_replies):
                    time.sleep(4)
                if mode == "past-budget":
                    time.sleep(9)
                if mode == "fail":
                    return self.answer(500, {"error": "model crashed"})
                if mode == "malformed":
                    return self.raw(200, b"{not json")
                if mode == "huge":
                    return self.raw(200, b'{"choices": [{"message": {"content": "' + b"A" * (5 << 20) + b'"}}]}')
                if mode == "redirect":
                    self.send_response(307)
                    self.send_header("Location", f"http://127.0.0.1:{server.elsewhere}/v1/chat/completions")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if mode == "markup":
                    content = ('[{"text": "<img src=x onerror=alert(1)>Sure", "intent": "actionRequest"}]' if wants_replies
                               else "<script>alert(1)</script><b>Bold</b> summary\u202e\u0007 from the model")
                else:
                    content = ('```json\n[{"text": "Approved, thanks!", "intent": "actionRequest"}, {"text": "Which PO?", '
                               '"intent": "question"}]\n```' if wants_replies else "The model says: approve invoice 2026-118.")
                self.answer(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})

            def answer(self, status, payload):
                self.raw(status, json.dumps(payload).encode())

            def raw(self, status, data):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.elsewhere_httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.elsewhere = self.elsewhere_httpd.server_address[1]
        for httpd in (self.httpd, self.elsewhere_httpd):
            threading.Thread(target=httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.elsewhere_httpd.shutdown()


@pytest.fixture()
def model(mailbox):
    server = ModelServer()
    home = mailbox["home"]
    tern(home, "settings", "set", "assist-endpoint", f"http://127.0.0.1:{server.port}/v1")
    tern(home, "settings", "set", "assist-model", "tiny-test-model")
    tern(home, "settings", "set", "assist", "endpoint")
    yield server
    tern(home, "settings", "set", "assist", "builtin")
    server.close()


def test_endpoint_provider_answers_and_every_failure_hides_the_sections(mailbox, model):
    home, stamp = mailbox["home"], mailbox["stamp"]
    invoice = thread_id(home, f"Invoice {stamp}")
    env = {"TERN_ASSIST_BUDGET_SECONDS": "2"}
    summary = json.loads(tern(home, "summarize", f"t{invoice}", "--json", env=env).stdout)["summary"]
    assert summary == {**summary, "provider": "endpoint", "text": "The model says: approve invoice 2026-118."}
    method, path, body = model.requests[-1]
    request = json.loads(body)
    assert (method, path, request["model"]) == ("POST", "/v1/chat/completions", "tiny-test-model")
    assert "2,340 EUR" in request["messages"][1]["content"]
    replies = json.loads(tern(home, "suggest", f"t{invoice}", "--json", env=env).stdout)["suggestions"]
    assert replies == [{"text": "Approved, thanks!", "intent": "actionRequest"}, {"text": "Which PO?", "intent": "question"}]
    # Bulk mail is not even sent to the model for replies.
    before = len(model.requests)
    assert json.loads(tern(home, "suggest", 't' + str(thread_id(home, f"Weekly digest {stamp}")), "--json", env=env).stdout)["suggestions"] == []
    assert len(model.requests) == before

    for mode in ["fail", "malformed", "huge", "slow", "redirect"]:
        model.mode = mode
        started = time.monotonic()
        result = tern(home, "suggest", f"t{invoice}", "--json", env=env)
        assert result.returncode == 0 and json.loads(result.stdout)["suggestions"] == [], mode
        assert time.monotonic() - started < 15, mode

    # Markup in the model's answer stays text: cleaned of controls, never interpreted.
    model.mode = "markup"
    replies = json.loads(tern(home, "suggest", f"t{invoice}", "--json", env=env).stdout)["suggestions"]
    assert replies == [{"text": "<img src=x onerror=alert(1)>Sure", "intent": "actionRequest"}]


def test_redirects_are_not_followed_and_remote_endpoints_need_the_override(mailbox, model):
    home, stamp = mailbox["home"], mailbox["stamp"]
    invoice = thread_id(home, f"Invoice {stamp}")
    model.mode = "redirect"
    assert json.loads(tern(home, "suggest", f"t{invoice}", "--json").stdout)["suggestions"] == []
    assert len([r for r in model.requests if r[0] == "POST"]) == 1, "the redirect target was never asked"
    # An address off this machine is refused without the override: nothing is sent anywhere.
    assert tern(home, "settings", "set", "assist-endpoint", "http://192.0.2.10:8080/v1").returncode == 0
    started = time.monotonic()
    assert json.loads(tern(home, "suggest", f"t{invoice}", "--json").stdout)["suggestions"] == []
    assert time.monotonic() - started < 5, "refused at once, not attempted"
    assert tern(home, "settings", "set", "assist-endpoint", "ftp://127.0.0.1/v1").returncode != 0


@pytest.fixture()
def web(mailbox, monkeypatch):
    home = mailbox["home"]
    port = free_port()
    monkeypatch.setenv("TERN_ASSIST_BUDGET_SECONDS", "6")  # a slow model (4 s) answers; one past it (9 s) is hidden
    server = start_serve(home, port, "--no-sync")
    driver = chromium()
    yield {"browser": driver, "base": browser_sign_in(driver, port), "home": home}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)


def faded_in(browser, element):
    """The chips fade in (FR-ED-02); axe reads colours once they are opaque."""
    # Styles first (an inserted element's animation exists once its style is computed), then no animation left.
    script = "const o = getComputedStyle(arguments[0]).opacity; return o === '1' && arguments[0].getAnimations().length === 0"
    return wait_until(lambda: browser.execute_script(script, element))


def open_thread(web, subject_words):
    browser = web["browser"]
    browser.get(f"{web['base']}/mail")
    by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, '{subject_words}')]").click()
    by_xpath(browser, "//h2[@id='thread-subject']")


def test_web_summary_and_chips_appear_and_open_the_composer(mailbox, web):
    browser, stamp = web["browser"], mailbox["stamp"]
    open_thread(web, f"Invoice {stamp}")
    summary = by_xpath(browser, "//section[@aria-labelledby='assist-summary-title'][.//p[@class='assist-text']]", timeout=10)
    assert "2,340 EUR" in summary.text or "14 November" in summary.text
    chips = by_xpath(browser, "//section[@aria-labelledby='smart-replies-title']", timeout=10)
    links = chips.find_elements("xpath", ".//a[contains(@class, 'chip')]")
    assert 1 <= len(links) <= 3
    assert faded_in(browser, chips)
    assert axe_violations(browser) == []
    chosen = links[0].text
    links[0].click()
    body = by_xpath(browser, "//textarea[@id='compose-body']")
    assert wait_until(lambda: body.get_attribute("value").startswith(chosen))
    assert "wrote:" in body.get_attribute("value"), "the quote stays below the chosen reply"
    # Reply from the toolbar: the composer's own chips insert their text.
    open_thread(web, f"Invoice {stamp}")
    by_xpath(browser, "//div[@role='toolbar']//a[normalize-space()='Reply']").click()
    chip = by_xpath(browser, "//form[@id='composer']//section[@aria-labelledby='smart-replies-title']//button", timeout=10)
    assert faded_in(browser, by_xpath(browser, "//form[@id='composer']//section[@aria-labelledby='smart-replies-title']"))
    text = chip.text
    chip.click()
    body = by_xpath(browser, "//textarea[@id='compose-body']")
    assert body.get_attribute("value").startswith(text)
    assert browser.switch_to.active_element.get_attribute("id") == "compose-body"
    assert axe_violations(browser) == []
    browser.get(f"{web['base']}/settings")
    by_xpath(browser, "//h2[normalize-space()='Summaries and suggested replies']")
    assert axe_violations(browser) == []
    # With reduced motion the chips appear without their fade.
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    open_thread(web, f"Invoice {stamp}")
    chips = by_xpath(browser, "//section[@aria-labelledby='smart-replies-title']", timeout=10)
    assert browser.execute_script("getComputedStyle(arguments[0]).opacity; return arguments[0].getAnimations().length", chips) == 0
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_web_hides_the_sections_when_the_provider_fails(mailbox, web, model):
    browser, stamp = web["browser"], mailbox["stamp"]
    model.mode = "fail"
    tern(web["home"], "settings", "set", "assist-model", "failing-model")  # nothing cached for this model
    open_thread(web, f"Invoice {stamp}")
    assert wait_until(lambda: not browser.find_elements("xpath", "//*[@data-assist-summary or @data-assist-replies]"), timeout=10)
    assert not browser.find_elements("xpath", "//section[@aria-labelledby='assist-summary-title']")
    assert not browser.find_elements("xpath", "//section[@aria-labelledby='smart-replies-title']")
    assert not browser.find_elements("xpath", "//div[@id='toasts']/*")
    assert axe_violations(browser) == []
    for mode in ["malformed", "huge", "past-budget"]:
        model.mode = mode
        tern(web["home"], "settings", "set", "assist-model", f"{mode}-model")
        open_thread(web, f"Invoice {stamp}")
        assert wait_until(lambda: not browser.find_elements("xpath", "//*[@data-assist-summary or @data-assist-replies]"), timeout=15), mode
        assert not browser.find_elements("xpath", "//section[@aria-labelledby='assist-summary-title' or "
                                                  "@aria-labelledby='smart-replies-title']"), mode
    # Assist off: no section at all, not even a placeholder.
    tern(web["home"], "settings", "set", "assist", "off")
    open_thread(web, f"Invoice {stamp}")
    assert not browser.find_elements("xpath", "//*[@data-assist-summary or @data-assist-replies or @id='assist-summary']")
    tern(web["home"], "settings", "set", "assist", "endpoint")
    # A slow model: the conversation is there at once with "Summarizing…" (axe checks that state), the summary after.
    model.mode = "slow-summary"
    tern(web["home"], "settings", "set", "assist-model", "slow-model")
    open_thread(web, f"Invoice {stamp}")
    busy = "//section[@aria-labelledby='assist-summary-title'][@aria-busy='true']"
    assert wait_until(lambda: "Summarizing" in browser.find_element("xpath", busy).text)
    assert browser.find_elements("xpath", "//div[@id='messages']/article")
    assert faded_in(browser, by_xpath(browser, "//section[@aria-labelledby='smart-replies-title']"))
    assert browser.find_elements("xpath", busy), "still summarizing"
    assert axe_violations(browser) == []
    by_xpath(browser, "//section[@aria-labelledby='assist-summary-title']//p[@class='assist-text']", timeout=15)
    # The model's markup is shown as text, never as elements.
    model.mode = "markup"
    tern(web["home"], "settings", "set", "assist-model", "markup-model")
    open_thread(web, f"Invoice {stamp}")
    text = by_xpath(browser, "//section[@aria-labelledby='assist-summary-title']//p[@class='assist-text']", timeout=10)
    assert "<script>alert(1)</script><b>Bold</b> summary" in text.text
    assert not browser.find_elements("xpath", "//section[@aria-labelledby='assist-summary-title']//script | "
                                               "//section[@aria-labelledby='assist-summary-title']//b")
    chips = by_xpath(browser, "//section[@aria-labelledby='smart-replies-title']", timeout=10)
    assert faded_in(browser, chips)  # text is read once it is visible
    assert "<img src=x onerror=alert(1)>Sure" in chips.text and not chips.find_elements("xpath", ".//img")
    assert axe_violations(browser) == []
    # Settings (a page without script): the form saves, and Test connection reports what the server lists.
    browser.get(f"{web['base']}/settings")
    model_field = by_xpath(browser, "//input[@id='setting-assist-model']")
    model_field.clear()
    model_field.send_keys("tiny-test-model")
    model_field.submit()
    by_xpath(browser, "//p[@role='status'][contains(., 'Settings saved.')]")
    assert tern(web["home"], "settings").stdout.count("tiny-test-model") == 1
    by_xpath(browser, "//button[normalize-space()='Test connection']").click()
    by_xpath(browser, "//p[@role='status'][contains(., 'Connected. Models: tiny-test-model')]", timeout=15)
    assert axe_violations(browser) == []
