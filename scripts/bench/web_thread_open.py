#!/usr/bin/env python3
"""`tern serve` measured in Chromium and under wrk (issue 17). Prints one JSON object.

Seeds a user's INBOX on the local Dovecot with a 5-message thread (HTML newsletters quoting each other, as
thread_open_peers.py writes them) and a 500-message thread, syncs them with bodies into a scratch home, and runs
`tern serve --no-sync` on a free port. Then:

- **click to content**: in Chromium (selenium, Debian's chromium + chromedriver), from the list page, a click on
  the 5-message thread's row until its conversation is in the page and painted (two animation frames after the
  mutation), and until the first expanded message's body frame has fired `load`; `performance.now()` in the page, the
  thread cached (opened once before), alternating with another thread so each click really navigates.
  p50 and p95 over `--clicks` runs.
- **500-message thread**: the same click on the 500-message thread (its first page of 25), and the page's JS
  heap (`performance.memory.usedJSHeapSize`) and DOM node count after it.
- **throughput**: wrk (Debian's package, installed when missing) on the conversation fragment endpoint
  (`/fragments/conversation?thread=ID`, the 5-message thread) with the session cookie, 2 threads, 8 connections,
  10 s, latency percentiles; next to nginx (Debian's nginx-light) serving the same response bytes as a static file
  in the same run: the floor of an HTTP server on this machine.

    scripts/bench/web_thread_open.py [--tern .build/release/tern] [--user carol] [--clicks 40] [--assist builtin|off]
    scripts/bench/web_thread_open.py --user dave --home HOME      # a store synced before (issue 38: 1,000,000 messages)

`--home` appends the two threads to a store synced before and syncs them into it (its account's body policy: with
`--bodies none` the first of the clicks fetches them, and is not counted), instead of a scratch home. Also measured:
**list page**, the Inbox's thread list loaded (`/mail`) from navigation start to first contentful paint and to the
load event, p50 and p95 over `--clicks` loads.
"""
import argparse
import imaplib
import json
import os
import re
import shutil
import socket
import ssl
import statistics
import subprocess
import tempfile
import time
import urllib.request
import uuid
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime

from sync_peers import settings
from thread_open_peers import thread_messages, percentile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKEN = "bench-token-" + uuid.uuid4().hex


def long_thread(stamp, address, count=500):
    start = datetime.now(timezone.utc) - timedelta(days=3)
    messages = []
    for index in range(count):
        message = EmailMessage()
        message["From"] = f"Person {index % 7} <person{index % 7}@example.org>"
        message["To"] = address
        message["Subject"] = f"Long discussion {stamp}" if index == 0 else f"Re: Long discussion {stamp}"
        message["Message-ID"] = f"<long-{stamp}-{index}@example.org>"
        message["Date"] = format_datetime(start + timedelta(minutes=5 * index))
        if index:
            message["In-Reply-To"] = f"<long-{stamp}-{index - 1}@example.org>"
            message["References"] = f"<long-{stamp}-0@example.org> <long-{stamp}-{index - 1}@example.org>"
        message.set_content(f"Message {index} of the long discussion.\n\n" + "A line of text for the body. " * 20)
        messages.append(message.as_bytes())
    return messages


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ensure(package, command):
    if shutil.which(command):
        return
    subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", package], check=True, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def synced_home(tern, user, s, scratch, messages, home=None):
    """`messages` appended to the user's INBOX (read), then a scratch home with the account, synced with bodies (or
    `home`, synced before, synced again)."""
    address = f"{user}@{s['TERN_TEST_DOMAIN']}"
    imap = imaplib.IMAP4_SSL("127.0.0.1", int(s["TERN_IMAPS_PORT"]), ssl_context=ssl.create_default_context(cafile=s["TERN_TEST_CA"]))
    imap.login(address, s["TERN_TEST_PASSWORD"])
    for raw in messages:
        imap.append("INBOX", "(\\Seen)", None, raw)
    imap.logout()
    if home:
        env = dict(os.environ, TERN_HOME=home, TERN_NO_BACKGROUND_PUSH="1", TERN_SERVE_TOKEN=TOKEN)
        subprocess.run([tern, "sync", user], env=env, check=True, capture_output=True)
        return home, env
    home = os.path.join(scratch, "tern-home")
    env = dict(os.environ, TERN_HOME=home, TERN_NO_BACKGROUND_PUSH="1", TERN_SERVE_TOKEN=TOKEN)
    subprocess.run([tern, "account", "add", user, "--email", address,
                    "--imap", f"127.0.0.1:{s['TERN_IMAPS_PORT']}", "--smtp", f"127.0.0.1:{s['TERN_SMTPS_PORT']}",
                    "--password-command", f"cat {s['TERN_TEST_PASSWORD_FILE']}", "--ca-file", s["TERN_TEST_CA"],
                    "--bodies", "all"], env=env, check=True, capture_output=True)
    subprocess.run([tern, "sync", user], env=env, check=True, capture_output=True)
    return home, env


def thread_of(tern, env, words):
    hits = json.loads(subprocess.run([tern, "search", words, "--json"], env=env, check=True, capture_output=True).stdout)
    return hits[0]["threadId"]


def serve(tern, env):
    """`tern serve --no-sync` on a free port: the process and its origin. Its output is a pipe here, so its first line
    names the address without the token (issue 32); the token is TERN_SERVE_TOKEN."""
    port = free_port()
    server = subprocess.Popen([tern, "serve", "--no-sync", "--port", str(port)], env=env, stdout=subprocess.PIPE, text=True)
    assert server.stdout.readline().startswith(f"Tern is running at http://127.0.0.1:{port}/ "), "tern serve started"
    return server, f"http://127.0.0.1:{port}"


def sign_in(driver, origin):
    """The sign-in address opened: the browser lands on the list under the process's secret path (issue 32), the app's
    base (`http://127.0.0.1:PORT/s/<hex>`), returned."""
    driver.get(f"{origin}/?token={TOKEN}")
    match = re.fullmatch(re.escape(origin) + r"(/s/[0-9a-f]{32})/mail", driver.current_url)
    assert match, f"signed in: {driver.current_url}"
    return origin + match.group(1)


def chromium(*flags):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--window-size=1400,1000", *flags):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(30)
    return driver


CLICK_SCRIPT = """
const [rowSelector, done] = [arguments[0], arguments[arguments.length - 1]];
const link = document.querySelector(rowSelector);
const start = performance.now();
let painted = null;
const finish = (framed) => done({painted: painted - start, framed: framed - start});
const check = () => {
  const conversation = document.querySelector('#conversation[data-thread-id="' + link.closest('[data-thread-id]').dataset.threadId + '"]');
  if (!conversation) return false;
  observer.disconnect();
  // The first expanded message's body document: its load event, listened to from the moment the
  // frame is in the page (a sandboxed frame's own paint cannot be observed from outside).
  const frame = conversation.querySelector('article.expanded iframe');
  let framed = null;
  if (frame) frame.addEventListener('load', () => { framed = performance.now(); });
  requestAnimationFrame(() => requestAnimationFrame(() => {
    painted = performance.now();
    if (!frame) { finish(painted); return; }
    const wait = () => framed !== null ? finish(framed) : (performance.now() - start > 10000 ? finish(NaN) : setTimeout(wait, 2));
    wait();
  }));
  return true;
};
const observer = new MutationObserver(check);
observer.observe(document.body, {childList: true, subtree: true});
link.click();
"""


def click_times(driver, base, thread_id, other_id, clicks):
    painted, framed = [], []
    for _ in range(clicks + 2):
        for target in (other_id, thread_id):
            driver.get(f"{base}/mail")
            driver.execute_async_script(CLICK_SCRIPT, f'.thread-row[data-thread-id="{target}"] .thread-link')
        # measured: a fresh list page, then the click on the thread under test
        driver.get(f"{base}/mail")
        result = driver.execute_async_script(CLICK_SCRIPT, f'.thread-row[data-thread-id="{thread_id}"] .thread-link')
        painted.append(result["painted"])
        framed.append(result["framed"])
    painted, framed = painted[2:], framed[2:]
    return {"paintedP50Milliseconds": round(statistics.median(painted), 1), "paintedP95Milliseconds": round(percentile(painted, 0.95), 1),
            "bodyFrameP50Milliseconds": round(statistics.median(framed), 1), "bodyFrameP95Milliseconds": round(percentile(framed, 0.95), 1),
            "clicks": len(painted)}


LIST_TIMING_SCRIPT = """
const navigation = performance.getEntriesByType('navigation')[0];
const paint = performance.getEntriesByName('first-contentful-paint')[0];
return {paint: paint ? paint.startTime : NaN, load: navigation.loadEventEnd, rows: document.querySelectorAll('.thread-row').length};
"""


def list_times(driver, base, loads):
    """The Inbox's list page: navigation start to first contentful paint and to the load event."""
    painted, loaded = [], []
    for _ in range(loads + 2):
        driver.get(f"{base}/mail")
        result = driver.execute_script(LIST_TIMING_SCRIPT)
        painted.append(result["paint"])
        loaded.append(result["load"])
    painted, loaded = painted[2:], loaded[2:]
    # Chromium leaves out first-contentful-paint now and then (a load whose paint it did not record): those
    # loads are counted, not timed.
    missed = sum(1 for value in painted if value is None)
    painted = [value for value in painted if value is not None]
    return {"missedPaints": missed, "paintP50Milliseconds": round(statistics.median(painted), 1), "paintP95Milliseconds": round(percentile(painted, 0.95), 1),
            "loadP50Milliseconds": round(statistics.median(loaded), 1), "loadP95Milliseconds": round(percentile(loaded, 0.95), 1),
            "rows": result["rows"], "loads": len(painted)}


def wrk(url, cookie=None):
    argv = ["wrk", "-t2", "-c8", "-d10s", "--latency", url]
    if cookie:
        argv[1:1] = ["-H", f"Cookie: {cookie}"]
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def latency(label):
        match = re.search(rf"\s{label}%\s+([\d.]+)(us|ms|s)", out)
        value, unit = float(match.group(1)), match.group(2)
        return round(value / 1000 if unit == "us" else value * 1000 if unit == "s" else value, 2)
    return {"requestsPerSecond": round(rps), "p50Milliseconds": latency("50"), "p99Milliseconds": latency("99")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tern", default=os.path.join(ROOT, ".build", "release", "tern"))
    parser.add_argument("--user", default="carol")
    parser.add_argument("--clicks", type=int, default=40)
    parser.add_argument("--assist", choices=["builtin", "off"], default="builtin",
                        help="summaries and suggested replies (issue 19) on or off, to measure what they add to an opening")
    parser.add_argument("--home", help="a TERN_HOME with the user's account synced already (issue 38)")
    args = parser.parse_args()
    ensure("wrk", "wrk")
    ensure("nginx-light", "nginx")
    s = settings()
    address = f"{args.user}@{s['TERN_TEST_DOMAIN']}"
    stamp = uuid.uuid4().hex[:10]
    _, short = thread_messages(stamp, address)
    scratch = tempfile.mkdtemp(prefix="tern-web-bench-")
    server = nginx = None
    try:
        _, env = synced_home(args.tern, args.user, s, scratch, short + long_thread(stamp, address), home=args.home)
        short_id, long_id = thread_of(args.tern, env, f"Quarterly plan {stamp}"), thread_of(args.tern, env, f"Long discussion {stamp}")
        subprocess.run([args.tern, "settings", "set", "assist", args.assist], env=env, check=True, capture_output=True)
        server, origin = serve(args.tern, env)
        driver = chromium("--enable-precise-memory-info")
        try:
            base = sign_in(driver, origin)
            cookie = next(c for c in driver.get_cookies() if c["name"] == "tern_session")
            list_load = list_times(driver, base, args.clicks)
            short_click = click_times(driver, base, short_id, long_id, args.clicks)
            long_click = click_times(driver, base, long_id, short_id, max(5, args.clicks // 4))
            driver.get(f"{base}/mail?thread={long_id}")
            memory = driver.execute_script("return {heap: performance.memory.usedJSHeapSize, nodes: document.getElementsByTagName('*').length,"
                                           " messages: document.querySelectorAll('article.message').length}")
        finally:
            driver.quit()

        fragment = f"{base}/fragments/conversation?thread={short_id}"
        request = urllib.request.Request(fragment, headers={"Cookie": f"tern_session={cookie['value']}"})
        body = urllib.request.urlopen(request).read()
        tern_wrk = wrk(fragment, f"tern_session={cookie['value']}")

        static = os.path.join(scratch, "static")
        os.makedirs(static)
        with open(os.path.join(static, "conversation.html"), "wb") as f:
            f.write(body)
        nginx_port = free_port()
        conf = os.path.join(scratch, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"daemon off; worker_processes 2; pid {scratch}/nginx.pid; error_log {scratch}/nginx-error.log;\n"
                    f"events {{ worker_connections 256; }}\n"
                    f"http {{ access_log off; client_body_temp_path {scratch}; proxy_temp_path {scratch}; fastcgi_temp_path {scratch};"
                    f" uwsgi_temp_path {scratch}; scgi_temp_path {scratch};"
                    f" server {{ listen 127.0.0.1:{nginx_port}; root {static}; }} }}\n")
        nginx = subprocess.Popen(["nginx", "-c", conf, "-p", scratch], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        nginx_wrk = wrk(f"http://127.0.0.1:{nginx_port}/conversation.html")
        print(json.dumps({
            "listPage": list_load,
            "clickToContent5": short_click,
            "clickToContent500": {**long_click, "jsHeapMB": round(memory["heap"] / 1048576, 2), "domNodes": memory["nodes"],
                                  "messagesInPage": memory["messages"]},
            "wrk tern serve /fragments/conversation": {**tern_wrk, "bytes": len(body)},
            "wrk nginx static copy": nginx_wrk,
        }, indent=2))
    finally:
        for process in (server, nginx):
            if process:
                process.terminate()
                process.wait(timeout=10)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
