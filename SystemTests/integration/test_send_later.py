"""Send later (issue 36) against the real Postfix and Dovecot: `tern send --at` queues the message in the Outbox with its
time (`tern outbox --json` shows `scheduledAt`); it is not delivered a second before that time and is delivered exactly
once after, whichever Tern process runs then: only the CLI (the next command sends what is due), `tern serve` across a
restart, or the first start after a time that passed while nothing ran, which says so. Edit takes it back to its draft,
discard cancels it. Delivery is read in the recipient's mailbox over IMAP."""
import select
import signal
import time
from datetime import datetime

import pytest

from support.imap import uids_with_subject
from support.servers import free_port, user_address
from support.tern import json_of, tern
from support.web import start_serve

SENDER = "alice"
RECIPIENT = "bob"
USER = SENDER  # the `home` fixture's account


def schedule(home, servers, subject, when, *extra):
    outcome = json_of(home, "send", "--to", user_address(servers, RECIPIENT), "--subject", subject, "--body", "Later.", "--at", when, *extra)
    assert outcome["state"] == "queued" and outcome["scheduledAt"], outcome
    return outcome, datetime.fromisoformat(outcome["scheduledAt"].replace("Z", "+00:00")).timestamp()


def copies(bob, subject):
    return len(uids_with_subject(bob, "INBOX", subject))


def until(moment):
    time.sleep(max(0.0, moment - time.time()))


def test_with_only_the_cli_it_goes_at_its_time_exactly_once(servers, home, bob):
    subject = f"Later CLI {int(time.time() * 1000)}"
    outcome, at = schedule(home, servers, subject, "in 12s")
    assert 10 <= at - time.time() <= 13
    [entry] = json_of(home, "outbox")
    assert entry["emailId"] == outcome["emailId"] and entry["scheduledAt"] == outcome["scheduledAt"] and entry["state"] == "queued"
    listed = tern(home, "outbox")
    assert "scheduled" in listed.stdout and subject in listed.stdout
    assert json_of(home, "drafts") == [], "a scheduled message is in the Outbox, not in Drafts"
    # Commands run up to a second before its time send nothing.
    until(at - 4)
    json_of(home, "outbox")
    until(at - 1)
    result = tern(home, "status")
    assert result.returncode == 0, result.stderr
    time.sleep(0.9)  # what an early send would need to arrive
    assert copies(bob, subject) == 0, "not a second before its time"
    # The next command after its time sends it, and says so on standard error.
    until(at + 0.5)
    result = tern(home, "outbox", "--json")
    assert result.returncode == 0, result.stderr
    assert f"sent scheduled message m{outcome['emailId']}" in result.stderr, result.stderr
    deadline = time.monotonic() + 20
    while copies(bob, subject) == 0 and time.monotonic() < deadline:
        time.sleep(0.3)
    assert copies(bob, subject) == 1
    assert json_of(home, "outbox") == []
    json_of(home, "outbox", "flush", "--now")
    time.sleep(1.5)
    assert copies(bob, subject) == 1, "exactly once"


def test_edit_takes_it_back_to_its_draft_and_discard_cancels_it(servers, home, bob):
    subject = f"Later edited {int(time.time() * 1000)}"
    outcome, _ = schedule(home, servers, subject, "tomorrow 08:00")
    back = json_of(home, "outbox", "edit", f"m{outcome['emailId']}")
    assert json_of(home, "outbox") == []
    [draft] = json_of(home, "drafts")
    assert draft["subject"] == subject and draft["id"] == back["draftId"]
    again = json_of(home, "drafts", "send", f"d{back['draftId']}", "--at", "in 2h")
    assert again["state"] == "queued" and again["scheduledAt"]
    assert [entry["emailId"] for entry in json_of(home, "outbox")] == [again["emailId"]]
    result = tern(home, "outbox", "discard", f"m{again['emailId']}")
    assert result.returncode == 0, result.stderr
    assert json_of(home, "outbox") == [] and json_of(home, "drafts") == []
    assert copies(bob, subject) == 0


def test_times_that_cannot_be_read_or_have_passed_are_refused(servers, home):
    for when, words in [("soon", "could not read 'soon'"), ("25:00", "not a time of day"), ("in 400d", "more than a year")]:
        result = tern(home, "send", "--to", user_address(servers, RECIPIENT), "--subject", "x", "--body", "x", "--at", when)
        assert result.returncode != 0 and words in result.stderr, (when, result.stderr)
    result = tern(home, "send", "--to", user_address(servers, RECIPIENT), "--subject", "x", "--body", "x", "--at", "2020-01-01T08:00Z")
    assert result.returncode != 0 and "has passed" in result.stderr, result.stderr
    assert json_of(home, "outbox") == []


def test_tern_serve_sends_it_at_its_time_across_a_restart(servers, home, bob):
    port = free_port()
    server = start_serve(home, port)
    subject = f"Later serve {int(time.time() * 1000)}"
    try:
        _, at = schedule(home, servers, subject, "in 25s")
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=15)
        server = start_serve(home, port)
        until(at - 1.2)
        assert copies(bob, subject) == 0, "not a second before its time"
        deadline = time.monotonic() + 30
        while copies(bob, subject) == 0 and time.monotonic() < deadline:
            time.sleep(0.3)
        arrived = time.time()
        assert copies(bob, subject) == 1
        assert arrived >= at, "never before its time"
        assert arrived - at < 12, "at its time, from the restarted server"
        time.sleep(7)  # the server's next passes, every 5 s
        assert copies(bob, subject) == 1, "exactly once"
    finally:
        server.terminate()
        server.wait(timeout=15)


@pytest.mark.parametrize("starter", ["cli", "serve"])
def test_a_time_missed_while_nothing_ran_goes_at_the_next_start_and_says_so(servers, home, bob, starter):
    subject = f"Later missed {starter} {int(time.time() * 1000)}"
    environment = {"TERN_SEND_LATE_AFTER": "1"}
    outcome, at = schedule(home, servers, subject, "in 2s")
    until(at + 3)
    assert copies(bob, subject) == 0, "nothing ran at its time"
    if starter == "cli":
        result = tern(home, "folders", env=environment)
        assert result.returncode == 0, result.stderr
        assert f"message m{outcome['emailId']}" in result.stderr and "was sent late" in result.stderr, result.stderr
    else:
        port = free_port()
        server = start_serve(home, port, env=environment)
        # The journal line comes once the whole push has ended (the Sent copy filed too), which on a busy machine or
        # a large mailbox is after the copy reaches bob: read the line itself, then stop the server.
        out = ""
        try:
            deadline = time.monotonic() + 60
            while "was sent late" not in out and time.monotonic() < deadline:
                ready, _, _ = select.select([server.stdout], [], [], max(0.0, deadline - time.monotonic()))
                line = server.stdout.readline() if ready else ""
                if not line:
                    break
                out += line
        finally:
            server.send_signal(signal.SIGTERM)
            rest, _ = server.communicate(timeout=15)
            out += rest
        assert f"message m{outcome['emailId']} scheduled for" in out and "was sent late" in out, out
    deadline = time.monotonic() + 20
    while copies(bob, subject) == 0 and time.monotonic() < deadline:
        time.sleep(0.3)
    assert copies(bob, subject) == 1
    assert json_of(home, "outbox") == []
