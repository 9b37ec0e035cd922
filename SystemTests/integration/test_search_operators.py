"""Issue 36: Gmail's search operators in `tern search --json`, against mail planted on the test Dovecot with known
senders, recipients, subjects, attachments, flags, dates and sizes; each operator alone (beside the stamp word that
keeps the test's own mail apart), combined, negated and in OR; a malformed query exits non-zero naming its part."""
import os
import ssl
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from support.accounts import add_account
from support.imap import imap_for, logout_quietly, quote
from support.messages import raw_message
from support.servers import user_address
from support.tern import json_of, tern

USER = "bob"
NOW = datetime.now(timezone.utc)


def days_ago(days):
    return NOW - timedelta(days=days)


# (key, folder, subject word, sender, cc, flags, days ago, attachment (name, bytes) or None, body size in bytes)
PLANTED = [
    ("review", "INBOX", "Budget review", "Alice Arnold <alice@example.com>", "carol@example.com", "(\\Flagged)", 1,
     ("budget-2024.xlsx", b"x" * 2000), 100),
    ("lunch", "INBOX", "Lunch plans", "Bob Baker <bobby@example.com>", None, "(\\Seen)", 20, None, 300_000),
    ("invoice", "Receipts", "Invoice 42", "Shop Billing <billing@shop.example>", "dave@example.com", "(\\Seen)", 40,
     ("invoice-42.pdf", b"%PDF-1.4 " + b"0" * 3000), 100),
    ("draft", "[Gmail]/Sent Mail", "Budget draft", "Alice Arnold <alice@example.com>", None, "(\\Seen)", 10, None, 100),
    ("newsletter", "[Gmail]/Trash", "Old newsletter", "News <news@list.example>", None, "", 80, None, 100),
]


@pytest.fixture(scope="module")
def planted(servers, tmp_path_factory):
    """The planted mail synced into a fresh home: (home, stamp, folder name of Receipts)."""
    stamp = uuid.uuid4().hex[:10]
    receipts = f"Receipts {stamp}"
    context = ssl.create_default_context(cafile=servers["TERN_TEST_CA"])
    imap = imap_for(servers, context, USER)
    try:
        assert imap.create(quote(receipts))[0] == "OK"
        for _key, folder, subject, sender, cc, flags, age, attachment, size in PLANTED:
            headers = {"Cc": cc} if cc else {}
            text = f"Planted for {stamp}. " + "y" * size
            raw = raw_message(user_address(servers, USER), f"{subject} {stamp}", text, sender=sender, headers=headers,
                              date=days_ago(age), attachments=[attachment] if attachment else ())
            target = receipts if folder == "Receipts" else folder
            assert imap.append(quote(target), flags, days_ago(age), raw)[0] == "OK"
    finally:
        logout_quietly(imap)
    home = tmp_path_factory.mktemp("search-operators")
    add_account(home, servers, USER)
    result = tern(home, "sync", USER, "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    yield home, stamp, receipts
    imap = imap_for(servers, context, USER)
    try:
        imap.delete(quote(receipts))
    finally:
        logout_quietly(imap)


def found(planted, query):
    home, stamp, _ = planted
    hits = json_of(home, "search", f"{stamp} {query}", "--limit", "100")
    keys = {key for key, _folder, subject, *_ in PLANTED for hit in hits if hit["subject"] == f"{subject} {stamp}"}
    return keys


def day(days):
    return days_ago(days).strftime("%Y-%m-%d")


CASES = [
    ("", {"review", "lunch", "invoice", "draft", "newsletter"}),
    ("from:alice", {"review", "draft"}),
    ("from:alice@example.com", {"review", "draft"}),
    ("to:carol", {"review"}),
    ("cc:carol", {"review"}),
    ("cc:dave", {"invoice"}),
    ("subject:budget", {"review", "draft"}),
    ("has:attachment", {"review", "invoice"}),
    ("filename:pdf", {"invoice"}),
    ("is:unread", {"review", "newsletter"}),
    ("is:read", {"lunch", "invoice", "draft"}),
    ("is:starred", {"review"}),
    ("in:inbox", {"review", "lunch"}),
    ("in:sent", {"draft"}),
    ("in:trash", {"newsletter"}),
    ("older_than:60d", {"newsletter"}),
    ("newer_than:15d", {"review", "draft"}),
    ("larger:200K", {"lunch"}),
    ("smaller:100K", {"review", "invoice", "draft", "newsletter"}),
    ("\"budget review\"", {"review"}),
    ("budget -from:alice", set()),
    ("budget OR lunch", {"review", "draft", "lunch"}),
    ("from:alice -in:sent", {"review"}),
    ("-is:read -in:trash", {"review"}),
    ("(is:starred OR has:attachment) -filename:xlsx", {"invoice"}),
    ("has:attachment larger:1K is:read", {"invoice"}),
]


@pytest.mark.parametrize("query, expected", CASES, ids=[case[0] or "stamp alone" for case in CASES])
def test_each_operator_alone_and_combined_finds_the_planted_answer(planted, query, expected):
    assert found(planted, query) == expected


def test_dates_and_named_folders(planted):
    _, _, receipts = planted
    assert found(planted, f"before:{day(30)}") == {"invoice", "newsletter"}
    assert found(planted, f"after:{day(15).replace('-', '/')}") == {"review", "draft"}
    assert found(planted, f"in:\"{receipts}\"") == {"invoice"}


def test_a_malformed_query_exits_non_zero_naming_its_part(planted):
    home, _, _ = planted
    result = tern(home, "search", "budget before:2024-13-01", "--json")
    assert result.returncode != 0
    assert "cannot read the date in before:2024-13-01" in result.stderr, result.stderr
    # The query again, with the part underlined.
    assert "  budget before:2024-13-01\n         ^^^^^^^^^^^^^^^^^" in result.stderr, result.stderr
    assert "SQL" not in result.stderr and "fts5" not in result.stderr.lower()
    result = tern(home, "search", "(from:alice", "--json")
    assert result.returncode != 0 and "( is never closed" in result.stderr, result.stderr
