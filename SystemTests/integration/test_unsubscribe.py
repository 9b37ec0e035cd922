"""Issue 36, one-click unsubscribe (RFC 2369, RFC 8058): a list message planted in bob's INBOX names a recording HTTPS
server on localhost (the test servers' certificate, trusted through TERN_UNSUBSCRIBE_CA_FILE). Nothing reaches it before
the person says yes: `tern unsubscribe` without a terminal and without --yes refuses and sends nothing; with --yes exactly
one POST arrives, body `List-Unsubscribe=One-Click`, form-encoded, with no cookie, referrer or credentials; a redirect to
another host is not followed; the result is remembered for the list. The mailto form sends the unsubscribe message
through bob's own Postfix, which delivers it to the list's address (alice's INBOX, read with a second IMAP client)."""
import email
import email.policy
import json
import uuid

import pytest

from support.imap import uids_with_subject
from support.list_server import start_list_server
from support.messages import raw_message
from support.servers import user_address
from support.tern import json_of, sync, tern
from support.waiting import wait_until

USER = "bob"


@pytest.fixture()
def list_server(servers):
    server = start_list_server(servers)
    yield server
    server.shutdown()


def env_for(servers):
    return {"TERN_UNSUBSCRIBE_CA_FILE": servers["TERN_TEST_CA"]}


def plant_list_mail(servers, imap, headers):
    """A list message in bob's INBOX with `headers`; its subject."""
    subject = f"Weekly news {uuid.uuid4().hex[:8]}"
    raw = raw_message(user_address(servers, USER), subject, "This week's news.", sender="News <news@lists.example.org>",
                      headers={"List-Id": "Example News <news.lists.example.org>", **headers})
    imap.append("INBOX", "", None, raw)
    return subject


def message_id_of(home, subject):
    [hit] = [hit for hit in json_of(home, "search", subject) if hit["subject"] == subject]
    return f"m{hit['emailId']}"


def test_one_click_posts_once_only_after_yes_without_cookies_or_referrer(servers, home, bob, list_server):
    port = list_server.server_address[1]
    subject = plant_list_mail(servers, bob, {
        "List-Unsubscribe": f"<mailto:leave@lists.example.org>, <https://localhost:{port}/u/token-1?list=news>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"})
    sync(home, USER)
    message = message_id_of(home, subject)

    refused = tern(home, "unsubscribe", message, env=env_for(servers))
    assert refused.returncode == 1 and "--yes" in refused.stderr and "localhost" in refused.stderr, refused.stderr
    refused_json = tern(home, "unsubscribe", message, "--json", env=env_for(servers))
    assert refused_json.returncode == 1
    assert list_server.requests == [], "nothing is fetched before the person confirms"

    record = json.loads(tern(home, "unsubscribe", message, "--yes", "--json", env=env_for(servers), check=True).stdout)
    assert record["outcome"] == "unsubscribed" and record["method"] == "one-click" and record["list"] == "news.lists.example.org", record
    [request] = list_server.requests
    assert request["method"] == "POST" and request["path"] == "/u/token-1?list=news"
    assert request["body"] == b"List-Unsubscribe=One-Click"
    headers = {name.lower(): value for name, value in request["headers"].items()}
    assert headers["content-type"] == "application/x-www-form-urlencoded"
    assert not {"cookie", "referer", "authorization", "origin"} & set(headers), headers

    again = tern(home, "unsubscribe", message, env=env_for(servers))
    assert "You unsubscribed from Example News" in again.stderr, again.stderr
    assert len(list_server.requests) == 1


def test_a_redirect_to_another_host_is_not_followed_and_a_refusal_is_reported(servers, home, bob, list_server):
    port = list_server.server_address[1]
    moved = plant_list_mail(servers, bob, {"List-Unsubscribe": f"<https://localhost:{port}/moved>",
                                           "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"})
    gone = plant_list_mail(servers, bob, {"List-Unsubscribe": f"<https://localhost:{port}/gone>",
                                          "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"})
    sync(home, USER)
    result = tern(home, "unsubscribe", message_id_of(home, moved), "--yes", env=env_for(servers))
    assert result.returncode == 1 and "does not follow" in result.stdout, result.stdout + result.stderr
    assert [r["path"] for r in list_server.requests] == ["/moved"], "the other host is never contacted"
    result = tern(home, "unsubscribe", message_id_of(home, gone), "--yes", "--json", env=env_for(servers))
    assert json.loads(result.stdout)["outcome"] == "refused" and "404" in json.loads(result.stdout)["detail"]


def test_a_web_page_alone_is_not_opened_and_mail_without_a_list_is_refused(servers, home, bob, list_server):
    port = list_server.server_address[1]
    page_only = plant_list_mail(servers, bob, {"List-Unsubscribe": f"<https://localhost:{port}/page>"})
    sync(home, USER)
    result = tern(home, "unsubscribe", message_id_of(home, page_only), "--yes", env=env_for(servers))
    assert result.returncode == 1 and "only a web page" in result.stderr, result.stderr
    assert list_server.requests == []


def test_mailto_sends_the_unsubscribe_message_through_the_persons_own_server(servers, home, bob, alice):
    alice_address = user_address(servers, "alice")
    token = uuid.uuid4().hex[:8]
    subject = plant_list_mail(servers, bob, {"List-Unsubscribe": f"<mailto:{alice_address}?subject=unsubscribe%20{token}&cc=x@example.org>"})
    sync(home, USER)
    record = json.loads(tern(home, "unsubscribe", message_id_of(home, subject), "--yes", "--json", check=True).stdout)
    assert record["method"] == "mail" and record["outcome"] in ("mail-sent", "mail-queued") and record["target"] == alice_address, record
    assert wait_until(lambda: bool(uids_with_subject(alice, "INBOX", f"unsubscribe {token}")), 30), "Postfix delivered it"
    [uid] = uids_with_subject(alice, "INBOX", f"unsubscribe {token}")
    delivered = email.message_from_bytes(alice.uid("FETCH", uid, "(BODY.PEEK[])")[1][0][1], policy=email.policy.default)
    assert user_address(servers, USER) in delivered["From"] and delivered["Cc"] is None
