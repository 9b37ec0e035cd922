"""Issue 37, read receipts never leave on their own: a message asking for one (Disposition-Notification-To), sent by
alice through the test Postfix to bob, gets no receipt until bob's Send receipt; then exactly one RFC 8098 MDN reaches
alice's INBOX, sent through bob's SMTP from the address the message was addressed to, and `$MDNSent` is on bob's copy on
the server (read by a second IMAP client). List mail and unopened mail are refused with a reason; another client's
`$MDNSent` and the "never" setting stop the asking. In Chromium, the request is found by role and name, Ignore works,
and the Privacy disclosure says what the message tried, with axe-core finding nothing."""
import email
import email.policy
import smtplib
import time
import uuid

import pytest

from support.browser import axe_violations, by_xpath, chromium
from support.imap import flags_of, uids_with_message_id
from support.servers import free_port, user_address
from support.tern import json_of, sync, tern
from support.waiting import wait_until
from support.web import browser_sign_in, start_serve

USER = "bob"


def send_as_alice(servers, tls_context, subject, *, headers=None, html=None):
    """A message from alice to bob through the test Postfix (implicit TLS submission); its Message-ID."""
    message = email.message.EmailMessage()
    message["From"] = f"Alice <{user_address(servers, 'alice')}>"
    message["To"] = f"Bob <{user_address(servers, 'bob')}>"
    message["Subject"] = subject
    message_id = f"<{uuid.uuid4().hex}@tern.test>"
    message["Message-ID"] = message_id
    for name, value in (headers or {}).items():
        message[name] = value
    message.set_content(f"{subject}: see you at nine.")
    if html:
        message.add_alternative(html, subtype="html")
    with smtplib.SMTP_SSL("127.0.0.1", int(servers["TERN_SMTPS_PORT"]), context=tls_context, timeout=10) as smtp:
        smtp.login(user_address(servers, "alice"), servers["TERN_TEST_PASSWORD"])
        smtp.send_message(message)
    return message_id


def arrived(imap, message_id, timeout=15):
    return wait_until(lambda: bool(uids_with_message_id(imap, "INBOX", message_id)), timeout)


def receipts_for(imap, subject):
    """The read receipts in the mailbox's INBOX for the message with `subject`, parsed."""
    imap.select("INBOX", readonly=True)
    uids = imap.uid("SEARCH", None, "SUBJECT", f'"Read: {subject}"')[1][0].split()
    return [email.message_from_bytes(imap.uid("FETCH", uid, "(BODY.PEEK[])")[1][0][1], policy=email.policy.default) for uid in uids]


def message_of(home, subject, *, keep_unread=False):
    """The message `subject` as `tern thread --json` shows it (opening it marks it read unless `keep_unread`)."""
    [hit] = [hit for hit in json_of(home, "search", subject) if hit["subject"] == subject]
    thread = json_of(home, "thread", f"t{hit['threadId']}", *(["--keep-unread"] if keep_unread else []))
    [shown] = [m for m in thread["messages"] if m["id"] == hit["emailId"]]
    return shown


def test_no_receipt_leaves_until_send_receipt_then_exactly_one_with_mdnsent_on_the_server(servers, tls_context, home, alice, bob):
    stamp = uuid.uuid4().hex[:8]
    subject = f"Plans {stamp}"
    alice_address = user_address(servers, "alice")
    message_id = send_as_alice(servers, tls_context, subject, headers={"Disposition-Notification-To": f"Alice <{alice_address}>"})
    assert arrived(bob, message_id)
    sync(home, USER)
    unopened = message_of(home, subject, keep_unread=True)
    assert unopened["readReceipt"] == {"to": [{"name": "Alice", "address": alice_address}], "status": "refused", "refusal": "notOpened"}, \
        unopened["readReceipt"]
    assert unopened["privacy"]["readReceiptRequested"] is True
    refused = tern(home, "receipt", "send", f"m{unopened['id']}")
    assert refused.returncode == 1 and "has not been opened" in refused.stderr, refused.stderr
    opened = message_of(home, subject)
    assert opened["readReceipt"]["status"] == "ask"
    # Opening, syncing and pushing send nothing by themselves.
    sync(home, USER)
    time.sleep(2)
    assert receipts_for(alice, subject) == []
    outcome = json_of(home, "receipt", "send", f"m{opened['id']}")
    assert outcome["state"] == "sent", outcome
    assert outcome["from"]["address"] == user_address(servers, "bob")
    assert wait_until(lambda: len(receipts_for(alice, subject)) == 1, 15)
    [receipt] = receipts_for(alice, subject)
    assert receipt.get_content_type() == "multipart/report"
    assert receipt.get_param("report-type") == "disposition-notification"
    assert receipt["From"].addresses[0].addr_spec == user_address(servers, "bob")
    human, machine = receipt.get_payload()
    assert human.get_content_type() == "text/plain" and "displayed" in human.get_content()
    assert machine.get_content_type() == "message/disposition-notification"
    fields = machine.as_bytes().decode()
    assert "Reporting-UA: Tern" in fields
    assert f"Final-Recipient: rfc822;{user_address(servers, 'bob')}" in fields
    assert f"Original-Message-ID: {message_id}" in fields
    assert "Disposition: manual-action/MDN-sent-manually; displayed" in fields
    # RFC 3503: the keyword on bob's copy, as another client sees it.
    assert wait_until(lambda: "$MDNSent" in flags_of(bob, "INBOX", message_id), 10), flags_of(bob, "INBOX", message_id)
    # Never twice: asking again is refused, and still exactly one receipt.
    again = tern(home, "receipt", "send", f"m{opened['id']}")
    assert again.returncode == 1 and "already sent" in again.stderr, again.stderr
    assert message_of(home, subject)["readReceipt"]["status"] == "sent"
    time.sleep(1)
    assert len(receipts_for(alice, subject)) == 1


def test_list_mail_is_refused_and_another_clients_mdnsent_or_never_ask_stop_the_asking(servers, tls_context, home, alice, bob):
    stamp = uuid.uuid4().hex[:8]
    alice_address = user_address(servers, "alice")
    asks = {"Disposition-Notification-To": alice_address}
    listed = send_as_alice(servers, tls_context, f"Newsletter {stamp}", headers={**asks, "List-Id": "News <news.tern.test>"})
    bulk = send_as_alice(servers, tls_context, f"Bulk {stamp}", headers={"Return-Receipt-To": alice_address, "Precedence": "bulk"})
    elsewhere = send_as_alice(servers, tls_context, f"Elsewhere {stamp}", headers=asks)
    ignored = send_as_alice(servers, tls_context, f"Ignored {stamp}", headers=asks)
    for message_id in (listed, bulk, elsewhere, ignored):
        assert arrived(bob, message_id)
    # Another client sent the receipt for one of them already.
    bob.select("INBOX")
    [uid] = uids_with_message_id(bob, "INBOX", elsewhere)
    bob.uid("STORE", uid, "+FLAGS", "($MDNSent)")
    sync(home, USER)
    for subject in (f"Newsletter {stamp}", f"Bulk {stamp}"):
        shown = message_of(home, subject)
        assert shown["readReceipt"]["status"] == "refused" and shown["readReceipt"]["refusal"] == "fromList"
        result = tern(home, "receipt", "send", f"m{shown['id']}")
        assert result.returncode == 1 and "mailing list" in result.stderr, result.stderr
    assert message_of(home, f"Elsewhere {stamp}")["readReceipt"]["status"] == "sent"
    shown = message_of(home, f"Ignored {stamp}")
    assert shown["readReceipt"]["status"] == "ask"
    tern(home, "receipt", "ignore", f"m{shown['id']}", check=True)
    assert message_of(home, f"Ignored {stamp}")["readReceipt"]["status"] == "ignored"
    # Never ask: no request is shown, and none can be sent.
    later = send_as_alice(servers, tls_context, f"Later {stamp}", headers=asks)
    assert arrived(bob, later)
    sync(home, USER)
    tern(home, "settings", "set", "read-receipts", "never", check=True)
    shown = message_of(home, f"Later {stamp}")
    assert shown["readReceipt"] == {"to": [{"address": alice_address}], "status": "refused", "refusal": "turnedOff"}
    result = tern(home, "receipt", "send", f"m{shown['id']}")
    assert result.returncode == 1 and "read-receipts ask" in result.stderr, result.stderr
    time.sleep(1)
    for subject in ("Newsletter", "Bulk", "Elsewhere", "Ignored", "Later"):
        assert receipts_for(alice, f"{subject} {stamp}") == [], subject
    assert "$MDNSent" not in flags_of(bob, "INBOX", ignored), "Ignore is remembered here only"


@pytest.fixture()
def web(home):
    port = free_port()
    server = start_serve(home, port, "--no-sync")
    driver = chromium(page_load_timeout=15)
    base = browser_sign_in(driver, port)
    yield {"browser": driver, "base": base}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)


def open_request_in_the_web_app(home, bob, web, message_id, subject):
    """Once the message reached bob: synced, opened from the list, and its receipt request's region."""
    assert arrived(bob, message_id)
    sync(home, USER)
    browser = web["browser"]
    browser.get(f"{web['base']}/mail")
    by_xpath(browser, f"//ul[@aria-labelledby='list-title']//a[contains(@aria-label, '{subject}')]").click()
    return browser, by_xpath(
        browser, "//main//*[@role='region' or self::section][starts-with(normalize-space(), 'Alice asks for a read receipt')]")


def test_the_request_and_the_privacy_report_in_the_web_app(servers, tls_context, home, alice, bob, web):
    stamp = uuid.uuid4().hex[:8]
    subject = f"Web plans {stamp}"
    html = (f"<p>Plans {stamp}</p><img src='https://images.shop.example/hero.png' width='300' height='200' alt='Hero'>"
            "<img src='https://images.shop.example/more.png' width='300' height='200' alt='More'>"
            "<img src='https://pixel.tracker.example/open.gif' width='1' height='1'>"
            "<p><a href='https://shop.example/sale?utm_source=mail&id=4'>Sale</a></p>")
    message_id = send_as_alice(servers, tls_context, subject, headers={"Disposition-Notification-To": user_address(servers, "alice")},
                               html=html)
    browser, region = open_request_in_the_web_app(home, bob, web, message_id, subject)
    assert region.accessible_name.startswith("Alice asks for a read receipt"), region.accessible_name
    send = region.find_element("xpath", ".//button[normalize-space()='Send receipt']")
    ignore = region.find_element("xpath", ".//button[normalize-space()='Ignore']")
    assert send.aria_role == "button" and ignore.aria_role == "button"
    # The privacy report: a disclosure beside the trackers notice.
    summary = by_xpath(browser, "//main//details[contains(@class, 'privacy-report')]/summary[normalize-space()='Privacy']")
    summary.click()
    report = summary.find_element("xpath", "..").text
    assert "images.shop.example (2)" in report and "2 loads from 1 host" in report, report
    assert "1 tracker: 1 pixel" in report and "pixel.tracker.example" in report, report
    assert "1 cleaned of tracking" in report, report
    assert "requested: nothing is sent unless you choose Send receipt" in report, report
    assert axe_violations(browser) == []
    ignore.click()
    assert wait_until(lambda: "Read receipt request ignored." in browser.find_element("id", "toasts").text, 10)
    assert wait_until(lambda: not browser.find_elements("xpath", "//main//button[normalize-space()='Send receipt']"), 10)
    assert axe_violations(browser) == []
    time.sleep(1)
    assert receipts_for(alice, subject) == []
    shown = message_of(home, subject)
    assert shown["readReceipt"]["status"] == "ignored"
    assert shown["privacy"]["remoteHosts"] == [{"host": "images.shop.example", "count": 2}]


def test_send_receipt_clicked_in_the_web_app_sends_one_mdn_repeating_the_original_recipient(
        servers, tls_context, home, alice, bob, web):
    """Issue 37: Send receipt, pressed in Chromium, sends exactly one MDN; the original's `Original-Recipient` field
    (an MTA's record of the envelope's ORCPT) is repeated in it, as RFC 8098 section 3.2.3 requires."""
    stamp = uuid.uuid4().hex[:8]
    subject = f"Clicked plans {stamp}"
    bob_address = user_address(servers, "bob")
    message_id = send_as_alice(servers, tls_context, subject, headers={
        "Disposition-Notification-To": user_address(servers, "alice"), "Original-Recipient": f"rfc822;{bob_address}"})
    browser, region = open_request_in_the_web_app(home, bob, web, message_id, subject)
    region.find_element("xpath", ".//button[normalize-space()='Send receipt']").click()
    assert wait_until(lambda: not browser.find_elements("xpath", "//main//button[normalize-space()='Send receipt']"), 15)
    assert axe_violations(browser) == []
    assert wait_until(lambda: len(receipts_for(alice, subject)) == 1, 20)
    [receipt] = receipts_for(alice, subject)
    _, machine = receipt.get_payload()
    fields = machine.as_bytes().decode()
    assert f"Original-Recipient: rfc822;{bob_address}" in fields, fields
    assert f"Final-Recipient: rfc822;{bob_address}" in fields, fields
    assert wait_until(lambda: "$MDNSent" in flags_of(bob, "INBOX", message_id), 10)
    assert message_of(home, subject)["readReceipt"]["status"] == "sent"
    time.sleep(1)
    assert len(receipts_for(alice, subject)) == 1
