"""mailto: links (issue 36, RFC 6068) in the CLI: `tern compose --mailto URI` prefills a new message (to, cc, bcc,
subject, body) exactly as the link says and sends nothing by itself; fields that would speak for the person (`from`,
`reply-to`) are ignored and named; hostile links (header lines smuggled in through encoded CR/LF, control characters,
huge bodies, thousands of recipients) are refused before anything is written."""
import time
import urllib.parse

from support.imap import uids_with_subject
from support.tern import json_of, tern

USER = "alice"


def test_a_link_prefills_a_new_message(servers, home):
    link = ("mailto:bob@tern.test,dave@tern.test?cc=carol@tern.test&bcc=alice@tern.test&subject=Caf%C3%A9%20plans"
            "&body=First%20line%0D%0ASecond%20line&from=boss@example.org&Reply-To=evil@example.net")
    result = tern(home, "compose", "--mailto", link, "--print", "--json")
    assert result.returncode == 0, result.stderr
    import json
    message = json.loads(result.stdout)
    assert [a["address"] for a in message["to"]] == ["bob@tern.test", "dave@tern.test"]
    assert [a["address"] for a in message["cc"]] == ["carol@tern.test"]
    assert [a["address"] for a in message["bcc"]] == ["alice@tern.test"]
    assert message["subject"] == "Café plans"
    assert message["body"].startswith("First line\nSecond line")
    assert message["from"]["address"] == "alice@tern.test", "a link never sets the sender"
    assert "from, reply-to" in result.stderr and "ignored" in result.stderr, result.stderr
    # The flags given beside the link still win.
    flagged = json_of(home, "compose", "--mailto", link, "--subject", "Mine", "--print")
    assert flagged["subject"] == "Mine" and [a["address"] for a in flagged["to"]] == ["bob@tern.test", "dave@tern.test"]


def test_a_link_is_never_sent_by_itself(servers, home, bob):
    subject = f"Linked {int(time.time() * 1000)}"
    link = "mailto:bob@tern.test?subject=" + urllib.parse.quote(subject) + "&body=hello"
    saved = json_of(home, "compose", "--mailto", link, "--draft")
    [draft] = json_of(home, "drafts")
    assert draft["id"] == saved["draftId"] and draft["subject"] == subject
    # Without --print, --draft or --send there is no terminal for the editor: refused, nothing written or sent.
    result = tern(home, "compose", "--mailto", link)
    assert result.returncode != 0 and "no terminal" in result.stderr, result.stderr
    assert json_of(home, "outbox") == [] and len(json_of(home, "drafts")) == 1
    time.sleep(1)
    assert uids_with_subject(bob, "INBOX", subject) == []


def test_hostile_links_are_refused(servers, home):
    hostile = {
        "mailto:bob@tern.test?subject=Hi%0D%0ABcc:%20spy@example.net": "subject contains a line break",
        "mailto:bob@tern.test?subject=Hi%0ABcc:%20spy@example.net": "subject contains a line break",
        "mailto:bob@tern.test%0D%0ABcc:spy@example.net": "to contains a line break",
        "mailto:bob@tern.test?cc=x@tern.test%0D%0AFrom:%20boss@example.org": "cc contains a line break",
        "mailto:bob@tern.test?subject=%07bell": "control characters",
        "mailto:bob@tern.test?subject=%FF": "not valid percent-encoded UTF-8",
        "mailto:bob@tern.test?body=" + "A" * 70_000: "longer than 64 KB",
        "mailto:" + ",".join(f"u{n}@tern.test" for n in range(150)): "more than 100 recipients",
        "https://example.org/": "not a mailto: link",
    }
    for link, words in hostile.items():
        result = tern(home, "compose", "--mailto", link, "--draft")
        assert result.returncode != 0 and words in result.stderr, (link[:80], result.stderr)
    assert json_of(home, "drafts") == []
    # In the body, a line that looks like a header is only text.
    message = json_of(home, "compose", "--mailto", "mailto:bob@tern.test?body=Bcc:%20spy@example.net%0D%0A%0D%0Ahi", "--print")
    assert message["bcc"] == [] and message["body"].startswith("Bcc: spy@example.net\n\nhi")
