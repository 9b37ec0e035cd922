"""Identities and signatures against the real Postfix and Dovecot (issue 35): bob's account gets the alias the test
Postfix delivers to his mailbox (scripts/mailservers' virtual alias map) as an identity with a name and a signature;
mail sent to the alias through Postfix is synced and answered, and the recipient's copy comes from the alias with the
signature between the person's text and the quote, in the plain and the HTML part. Mail that names the alias only in
Delivered-To is answered from it too; Reply All leaves out every identity; `--from` takes only an identity."""
import email
import email.policy
import smtplib
import uuid

import pytest

from support.imap import imap_for, uids_with_subject
from support.messages import raw_message
from support.servers import user_address
from support.tern import json_of, tern
from support.waiting import wait_for

USER = "bob"
CORRESPONDENT = "dave"
SIGNATURE = "Bob Example\nSales team, tern.test"


@pytest.fixture()
def alias(servers):
    address = servers.get("TERN_TEST_ALIAS")
    if not address or servers.get("TERN_TEST_ALIAS_TARGET") != USER:
        pytest.skip("the test servers were started without the alias (restart them with scripts/mailservers)")
    return address


@pytest.fixture()
def identity_home(home, alias):
    tern(home, "settings", "set", "undo-send-delay", "0", check=True)
    added = json_of(home, "identity", "add", USER, "--email", alias, "--name", "Bob (Sales)", "--signature", SIGNATURE)
    assert added == {"account": USER, "email": alias, "name": "Bob (Sales)", "signature": SIGNATURE, "isDefault": False}
    return home


def stamp():
    return uuid.uuid4().hex[:10]


def fetch(imap, uid):
    return email.message_from_bytes(imap.uid("FETCH", uid, "(BODY.PEEK[])")[1][0][1], policy=email.policy.default)


def plant_and_sync(servers, tls_context, home, raw):
    """`raw` put in bob's INBOX by another client, then synced."""
    bob = imap_for(servers, tls_context, USER)
    try:
        bob.append("INBOX", "", None, raw)
    finally:
        bob.logout()
    json_of(home, "sync", USER)


def email_id_of(home, subject):
    [hit] = json_of(home, "search", subject)
    return f"m{hit['emailId']}"


def test_identities_are_listed_and_the_default_cannot_be_removed(servers, identity_home, alias):
    listed = json_of(identity_home, "identity", "list", USER)
    assert [(i["email"], i["isDefault"]) for i in listed] == [(user_address(servers, USER), True), (alias, False)]
    assert listed[1]["signature"] == SIGNATURE
    refused = tern(identity_home, "identity", "remove", USER, "--email", user_address(servers, USER))
    assert refused.returncode != 0 and "cannot be removed" in refused.stderr
    duplicate = tern(identity_home, "identity", "add", USER, "--email", alias.upper())
    assert duplicate.returncode != 0 and "already exists" in duplicate.stderr
    assert user_address(servers, USER) in tern(identity_home, "identity", "list", check=True).stdout


def test_a_reply_to_mail_sent_to_the_alias_comes_from_it_with_the_signature_above_the_quote(servers, tls_context, identity_home,
                                                                                            alias):
    subject = f"Quote please {stamp()}"
    correspondent = user_address(servers, CORRESPONDENT)
    # Through the test Postfix (MX-style port, no AUTH): the alias map delivers it to bob.
    with smtplib.SMTP("127.0.0.1", int(servers["TERN_SMTP_PORT"]), timeout=10) as smtp:
        smtp.sendmail(correspondent, [alias], raw_message(alias, subject, "How much for ten?", sender=f"Dave <{correspondent}>"))
    bob = imap_for(servers, tls_context, USER)
    try:
        assert wait_for(lambda: uids_with_subject(bob, "INBOX", subject), timeout=30), "Postfix delivered to the alias"
    finally:
        bob.logout()
    json_of(identity_home, "sync", USER)
    message = email_id_of(identity_home, subject)

    printed = json_of(identity_home, "reply", message, "--print")
    assert printed["from"] == {"name": "Bob (Sales)", "address": alias}
    body = printed["body"]
    assert f"-- \n{SIGNATURE}\n" in body and body.index("-- \n") < body.index("wrote:\n> How much for ten?")

    sent = json_of(identity_home, "reply", message, "--body", "Ninety euros.", "--send", "--undo", "0")
    assert sent["state"] == "sent", sent
    dave = imap_for(servers, tls_context, CORRESPONDENT)
    try:
        [uid] = wait_for(lambda: uids_with_subject(dave, "INBOX", f"Re: {subject}"), timeout=30)
        copy = fetch(dave, uid)
    finally:
        dave.logout()
    assert copy["From"].addresses[0].addr_spec == alias and copy["From"].addresses[0].display_name == "Bob (Sales)"
    text = copy.get_body(("plain",)).get_content()
    lines = text.splitlines()
    assert lines[0] == "Ninety euros."
    separator = lines.index("-- ")
    attribution = next(i for i, line in enumerate(lines) if line.endswith("wrote:"))
    assert lines[separator + 1:separator + 3] == SIGNATURE.splitlines()
    assert 0 < separator < attribution and lines[attribution + 1] == "> How much for ten?"
    html = copy.get_body(("html",)).get_content()
    assert html.index("Ninety euros.") < html.index("-- <br>") < html.index("Sales team, tern.test") < html.index("wrote:")


def test_mail_naming_the_alias_only_in_delivered_to_is_answered_from_it(servers, tls_context, identity_home, alias):
    subject = f"List post {stamp()}"
    raw = raw_message("Plans list <plans@lists.example.org>", subject, "Who comes?", sender="Zoe <zoe@example.org>",
                      headers={"Delivered-To": alias, "X-Original-To": alias})
    plant_and_sync(servers, tls_context, identity_home, raw)
    reply = json_of(identity_home, "reply", email_id_of(identity_home, subject), "--print")
    assert reply["from"]["address"] == alias
    forward = json_of(identity_home, "forward", email_id_of(identity_home, subject), "--print")
    assert forward["from"]["address"] == alias
    assert forward["body"].index(f"-- \n{SIGNATURE}") < forward["body"].index("---------- Forwarded message ----------")


def test_reply_all_leaves_out_every_identity_and_from_takes_only_an_identity(servers, tls_context, identity_home, alias):
    subject = f"Team {stamp()}"
    me = user_address(servers, USER)
    raw = raw_message(f"{alias.upper()}, Carol <carol@tern.test>", subject, "Lunch?", sender="Zoe <zoe@example.org>",
                      headers={"Cc": f"{me}, Dave <dave@tern.test>"})
    plant_and_sync(servers, tls_context, identity_home, raw)
    message = email_id_of(identity_home, subject)
    everyone = json_of(identity_home, "reply", message, "--all", "--print")
    assert everyone["from"]["address"].lower() == alias
    assert [a["address"] for a in everyone["to"]] == ["zoe@example.org"]
    assert sorted(a["address"] for a in everyone["cc"]) == ["carol@tern.test", "dave@tern.test"]

    own = json_of(identity_home, "reply", message, "--from", me.upper(), "--print")
    assert own["from"]["address"] == me and "-- \n" not in own["body"], "the default identity has no signature"
    stranger = tern(identity_home, "reply", message, "--from", "boss@example.org", "--print")
    assert stranger.returncode != 0 and "not one of your identities" in stranger.stderr
    plus = tern(identity_home, "reply", message, "--from", f"{USER}+x@{servers['TERN_TEST_DOMAIN']}", "--print")
    assert plus.returncode != 0


def test_a_new_message_from_an_identity_has_its_signature_below_the_text(servers, identity_home, alias):
    new = json_of(identity_home, "compose", "--from", alias.upper(), "--to", user_address(servers, CORRESPONDENT), "--subject", "Hi",
                  "--body", "Hello Dave.", "--print")
    assert new["from"] == {"name": "Bob (Sales)", "address": alias}
    assert new["body"].startswith("Hello Dave.\n") and new["body"].endswith(f"\n-- \n{SIGNATURE}")
    plain = json_of(identity_home, "compose", "--to", user_address(servers, CORRESPONDENT), "--body", "Hello.", "--print")
    assert plain["from"]["address"] == user_address(servers, USER) and plain["body"] == "Hello."
