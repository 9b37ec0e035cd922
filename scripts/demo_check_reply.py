#!/usr/bin/env python3
"""After `make demo`: replies to Bob's "Lunch on Friday?" in the demo's web app, in Chromium, found by role and
name, and reads the reply in Bob's mailbox over IMAP (issue 18: the demo's app replies to seeded mail and the reply
arrives). Exits non-zero when it does not.

    .build/venv/bin/python scripts/demo_check_reply.py
"""
import imaplib
import os
import ssl
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def demo_servers():
    """The demo's test servers (the default ports: any TERN_* override of the environment is left out)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("TERN_")}
    out = subprocess.run([os.path.join(ROOT, "scripts", "mailservers"), "env"], capture_output=True, text=True, env=env, cwd=ROOT,
                         check=True).stdout
    return {line.split("=", 1)[0]: line.split("=", 1)[1].strip('"') for line in out.splitlines() if "=" in line}


def reply_in_browser(address, text):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)

    def find(xpath, timeout=10):
        return WebDriverWait(driver, timeout).until(lambda d: d.find_element("xpath", xpath))
    try:
        driver.get(address)
        find("//a[contains(@aria-label, 'Lunch on Friday?')]").click()
        find("//div[@role='toolbar']//a[normalize-space()='Reply']").click()
        find("//textarea[@id='compose-body']")
        time.sleep(0.5)
        driver.switch_to.active_element.send_keys(text)
        send = find("//form[@aria-labelledby='composer-title']//button[normalize-space()='Send']")
        WebDriverWait(driver, 10).until(lambda d: send.get_attribute("disabled") is None)
        send.click()
        find("//div[@id='toasts']//*[contains(., 'Message sent')]", 30)
    finally:
        driver.quit()


def main():
    servers = demo_servers()
    with open(os.path.join(ROOT, ".build", "demo-serve.address")) as f:
        address = f.read().strip()
    reply_in_browser(address, "Friday works, see you at noon. Alice")
    print("web app: Message sent")
    imap = imaplib.IMAP4_SSL("127.0.0.1", int(servers["TERN_IMAPS_PORT"]),
                             ssl_context=ssl.create_default_context(cafile=servers["TERN_TEST_CA"]))
    imap.login("bob@tern.test", servers["TERN_TEST_PASSWORD"])
    uids = []
    for _ in range(30):
        imap.select("INBOX")
        uids = imap.uid("SEARCH", None, "SUBJECT", '"Re: Lunch on Friday?"')[1][0].split()
        if uids:
            break
        time.sleep(0.5)
    if not uids:
        sys.exit("the reply did not arrive in Bob's INBOX")
    header = imap.uid("FETCH", uids[-1], "(BODY.PEEK[HEADER.FIELDS (FROM TO SUBJECT IN-REPLY-TO)])")[1][0][1].decode()
    print(f"Bob's INBOX has the reply:\n{header}")
    imap.logout()


if __name__ == "__main__":
    main()
