"""Composing against the real Dovecot (FR-COMP-01, FR-COMP-04): a message planted with Reply-To, Cc,
a localized reply prefix, References and an attachment is synced, then `tern reply --all --print
--json`, `tern forward --print --json` and `tern contacts` show what the composer would open with.
Nothing is sent or saved (drafts and sending come with the next part of issue 16)."""
import uuid
from email.message import EmailMessage
from email.utils import format_datetime
from datetime import datetime, timezone

import pytest

from support.imap import imap_for
from support.servers import user_address
from support.tern import json_of, tern

USER = "carol"


@pytest.fixture()
def account_options(servers):
    """The `home` fixture's account has an alias."""
    return ("--alias", alias(servers))


def alias(servers):
    return f"{USER}.alias@{servers['TERN_TEST_DOMAIN']}"


def plant(servers, tls_context, stamp, date=datetime(2026, 3, 14, 9, 26, tzinfo=timezone.utc)):
    me = user_address(servers, USER)
    message = EmailMessage()
    message["From"] = "Zoë Durand <zoe@example.org>"
    message["Reply-To"] = "Plans list <plans@example.net>"
    message["To"] = f"Carol <{me}>, Bob <bob@example.com>, {alias(servers)}"
    message["Cc"] = f"{me.upper()}, Dave <dave@example.com>, zoe@example.org, BOB@example.com"
    message["Subject"] = f"AW: Plan {stamp}"
    message["Message-ID"] = f"<plan-{stamp}@example.org>"
    message["In-Reply-To"] = f"<root-{stamp}@example.org>"
    message["References"] = f"<root-{stamp}@example.org> <not-an-id>"
    message["Date"] = format_datetime(date)
    message.set_content("Line one of the plan.\n> What plan?\n>> The old one.\n")
    message.add_attachment(b"%PDF-1.4 plan", maintype="application", subtype="pdf", filename="plan.pdf")
    imap = imap_for(servers, tls_context, USER)
    try:
        imap.append("INBOX", "", None, message.as_bytes())
    finally:
        imap.logout()


def email_id_of(home, stamp):
    hits = json_of(home, "search", stamp)
    assert len(hits) == 1, hits
    return f"m{hits[0]['emailId']}"


def test_reply_all_prints_the_prefilled_reply(servers, tls_context, home):
    stamp = uuid.uuid4().hex[:10]
    plant(servers, tls_context, stamp)
    json_of(home, "sync", USER)
    reply = json_of(home, "reply", email_id_of(home, stamp), "--all", "--print")

    assert reply["account"] == USER and reply["mode"] == "replyAll"
    assert reply["from"]["address"] == alias(servers)
    assert [a["address"] for a in reply["to"]] == ["plans@example.net"]
    assert [a["address"].lower() for a in reply["cc"]] == ["bob@example.com", "dave@example.com", "zoe@example.org"]
    assert reply["bcc"] == []
    assert reply["subject"] == f"AW: Plan {stamp}"
    assert reply["inReplyTo"] == f"<plan-{stamp}@example.org>"
    assert reply["references"] == [f"<root-{stamp}@example.org>", f"<plan-{stamp}@example.org>"]
    assert "Zoë Durand wrote:\n> Line one of the plan.\n>> What plan?\n>>> The old one." in reply["body"]
    assert reply["attachments"] == []
    assert reply["invalidRecipients"] == [] and reply["warnings"] == [] and reply["confirmations"] == []

    plain = json_of(home, "reply", email_id_of(home, stamp), "--print")
    assert [a["address"] for a in plain["to"]] == ["plans@example.net"] and plain["cc"] == []


def test_forward_lists_the_original_attachments(servers, tls_context, home):
    stamp = uuid.uuid4().hex[:10]
    plant(servers, tls_context, stamp)
    json_of(home, "sync", USER)
    forward = json_of(home, "forward", email_id_of(home, stamp), "--print")
    assert forward["subject"] == f"Fwd: AW: Plan {stamp}"
    assert forward["to"] == [] and forward["inReplyTo"] is None and forward["references"] == []
    assert [(a["filename"], a["availability"]) for a in forward["attachments"]] == [("plan.pdf", "pending")]
    assert "---------- Forwarded message ----------\nFrom: Zoë Durand <zoe@example.org>\n" in forward["body"]
    assert f"Subject: AW: Plan {stamp}\n" in forward["body"]
    assert forward["warnings"] == [{"blocksSending": True, "message": "no valid recipient in To, Cc or Bcc"}]

    text = tern(home, "forward", email_id_of(home, stamp), "--print")
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith(f"From: {alias(servers)}\nTo: \nSubject: Fwd: AW: Plan {stamp}\n")
    assert "no valid recipient" in text.stderr


def test_contacts_come_from_synced_mail(servers, tls_context, home):
    stamp = uuid.uuid4().hex[:10]
    # Dated now: a contact takes the name of its newest mail, and other files plant mail from zoe@ as "Zoe Example".
    plant(servers, tls_context, stamp, date=datetime.now(timezone.utc))
    json_of(home, "sync", USER)
    suggestions = json_of(home, "contacts", "ZOE")
    assert [s["address"] for s in suggestions] == ["zoe@example.org"]
    assert suggestions[0]["name"] == "Zoë Durand"
    assert [s["address"] for s in json_of(home, "contacts", "dur")] == ["zoe@example.org"]
    assert json_of(home, "contacts", "nobody-like-this") == []
