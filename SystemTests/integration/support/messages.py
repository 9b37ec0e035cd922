"""Mail to plant on the test servers, and finding it again in Tern."""
import uuid
from functools import partial
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime

from support.accounts import ACCEPTANCE_USER
from support.tern import json_of


def raw_message(to, subject, text="Hello.", *, html=None, sender="zoe@example.org", message_id=None, in_reply_to=None,
                date=None, minutes_ago=0, headers=None, attachments=()):
    """A message to `to` (an address) as bytes: more `headers` (name → value), a plain `text` part, an HTML alternative
    when `html` is given, dated `date` (default `minutes_ago` minutes ago), and `attachments` as (name, bytes) — sent as
    application/octet-stream — or (name, maintype, subtype, bytes)."""
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = sender, to, subject
    mail["Message-ID"] = message_id or f"<{uuid.uuid4().hex}@example.org>"
    mail["Date"] = format_datetime(date or datetime.now(timezone.utc) - timedelta(minutes=minutes_ago))
    if in_reply_to:
        mail["In-Reply-To"] = mail["References"] = in_reply_to
    for name, value in (headers or {}).items():
        mail[name] = value
    mail.set_content(text)
    if html:
        mail.add_alternative(html, subtype="html")
    for attachment in attachments:
        name, maintype, subtype, data = attachment if len(attachment) == 4 else (attachment[0], "application", "octet-stream",
                                                                                attachment[1])
        mail.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return mail.as_bytes()


# The mail of the web acceptance site (conftest's `app`): to its user, from Zoe, five minutes ago.
acceptance_message = partial(raw_message, f"{ACCEPTANCE_USER}@tern.test", sender="Zoe Example <zoe@example.org>", minutes_ago=5)


def plant_thread(servers, imap, count, *, unread=(), stamp=None, to="dave", **kwargs):
    """A thread of `count` messages a minute apart in INBOX, addressed to the test user `to`; the indexes in `unread`
    stay unread. Returns its stamp (in every subject and body) and the root's Message-ID."""
    stamp = stamp or uuid.uuid4().hex[:10]
    root = f"<root-{stamp}@example.org>"
    start = datetime.now(timezone.utc) - timedelta(minutes=count + 5)
    imap.select("INBOX")
    for index in range(count):
        message_id = root if index == 0 else f"<reply-{index}-{stamp}@example.org>"
        raw = raw_message(f"{to}@{servers['TERN_TEST_DOMAIN']}", f"Thread {stamp}" if index == 0 else f"Re: Thread {stamp}",
                          message_id=message_id, in_reply_to=None if index == 0 else root, text=f"Message {index} of {stamp}.",
                          date=start + timedelta(minutes=index), **kwargs)
        flags = "" if index in unread else "(\\Seen)"
        imap.append("INBOX", flags, None, raw)
    return stamp, root


def plant_one(servers, imap, home, user, word, flags=None):
    """One message from Zoe put in `user`'s INBOX by another client (`flags`: an IMAP flag list such as "(\\Seen)"), then
    synced into `home`: its Message-ID, Tern's email id and thread id."""
    stamp = uuid.uuid4().hex[:12]
    message_id = f"<{word.lower()}-{stamp}@example.org>"
    imap.append("INBOX", flags, None, raw_message(f"{user}@{servers['TERN_TEST_DOMAIN']}", f"{word} {stamp}", message_id=message_id))
    json_of(home, "sync", user)
    [hit] = json_of(home, "search", stamp)
    return message_id, hit["emailId"], hit["threadId"]


def thread_id_of(home, stamp):
    """The thread of the first message Tern finds by `stamp`."""
    hits = json_of(home, "search", stamp, "--limit", "1000")
    assert hits, f"no message with {stamp}"
    return hits[0]["threadId"]


def fill_folder(servers, dave_server, folder, count, words, user="dave"):
    """Creates `folder` with `count` messages of `words` random hex words each: bodies that do not compress
    (COMPRESS=DEFLATE is on, and relays and disks count real bytes)."""
    from support.imap import quote
    from support.servers import user_address

    client = dave_server.imap()
    try:
        assert client.create(quote(folder))[0] == "OK"
        for index in range(count):
            body = f"Message {index} of {folder}. " + " ".join(uuid.uuid4().hex for _ in range(words))
            message = (f"From: zoe@example.org\r\nTo: {user_address(servers, user)}\r\nSubject: {folder} {index}\r\n"
                       f"Message-ID: <fill-{index}-{uuid.uuid4().hex}@example.org>\r\n\r\n{body}\r\n")
            client.append(quote(folder), "", None, message.encode())
    finally:
        client.logout()
