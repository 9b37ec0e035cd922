"""Another IMAP client's view of a mailbox on the test servers, mailbox names on the wire, and the folder layouts of the
servers test_layouts.py starts (issue 22)."""
import base64
import imaplib
import pathlib
import ssl
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime

from support.accounts import NO_SMTP
from support.messages import raw_message
from support.servers import user_address
from support.tern import tern


def imap_for(servers, tls_context, user):
    """A signed-in IMAP-over-TLS session of `user` on the test Dovecot."""
    imap = imaplib.IMAP4_SSL("127.0.0.1", int(servers["TERN_IMAPS_PORT"]), ssl_context=tls_context)
    imap.login(user_address(servers, user), servers["TERN_TEST_PASSWORD"])
    return imap


def logout_quietly(imap):
    try:
        imap.logout()
    except (imaplib.IMAP4.abort, OSError):
        pass  # a test restarted Dovecot under it


def arrived(servers, user, subject, timeout=30):
    """Whether a message with `subject` reached `user`'s INBOX within `timeout` seconds."""
    import time
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), user)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            imap.select("INBOX")
            if imap.uid("SEARCH", None, "SUBJECT", f'"{subject}"')[1][0].split():
                return True
            time.sleep(0.5)
        return False
    finally:
        logout_quietly(imap)


def newest_with_subject(servers, user, subject, folder="INBOX", accept=lambda message: True, timeout=30):
    """The newest message with `subject` in `user`'s `folder` that `accept` takes, parsed, once it is there (waiting up
    to `timeout` seconds), with how many messages have that subject; (None, 0) when none came."""
    import email
    import time
    from email import policy
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), user)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            imap.select(quote(folder))
            uids = imap.uid("SEARCH", None, "SUBJECT", f'"{subject}"')[1][0].split()
            for uid in reversed(uids):
                data = imap.uid("FETCH", uid, "(BODY.PEEK[])")[1]
                # A draft's copy is replaced on every save: a UID just searched may be gone by its FETCH.
                if data and isinstance(data[0], tuple):
                    message = email.message_from_bytes(data[0][1], policy=policy.default)
                    if accept(message):
                        return message, len(uids)
            time.sleep(0.5)
        return None, 0
    finally:
        logout_quietly(imap)


def plant_messages(servers, user, count, prefix):
    """`count` messages "<prefix> <n>" a second apart up to now, so they are the newest of the Inbox (newer than earlier
    runs')."""
    imap = imap_for(servers, ssl.create_default_context(cafile=servers["TERN_TEST_CA"]), user)
    now = datetime.now(timezone.utc)
    try:
        for index in range(count):
            imap.append("INBOX", "", None, raw_message(user_address(servers, user), f"{prefix} {index}",
                                                       date=now - timedelta(seconds=count - index)))
    finally:
        logout_quietly(imap)


def uids_with_message_id(imap, folder, message_id):
    imap.select(f'"{folder}"')
    return imap.uid("SEARCH", None, "HEADER", "Message-ID", message_id)[1][0].split()


def uids_with_subject(imap, folder, subject):
    imap.select(f'"{folder}"')
    return imap.uid("SEARCH", None, "SUBJECT", f'"{subject}"')[1][0].split()


def flags_of(imap, folder, message_id):
    [uid] = uids_with_message_id(imap, folder, message_id)
    return imap.uid("FETCH", uid, "(FLAGS)")[1][0].decode()


def quote(wire):
    """A mailbox name as an IMAP quoted string."""
    return '"' + wire.replace("\\", "\\\\").replace('"', '\\"') + '"'


def modified_utf7(name):
    """The wire form of a mailbox name: `&` as `&-`, other non-ASCII runs as `&` + base64 of UTF-16BE + `-`."""
    out, pending = [], ""

    def flush():
        nonlocal pending
        if pending:
            out.append("&" + base64.b64encode(pending.encode("utf-16-be")).decode().rstrip("=").replace("/", ",") + "-")
            pending = ""

    for character in name:
        if 0x20 <= ord(character) <= 0x7E:
            flush()
            out.append("&-" if character == "&" else character)
        else:
            pending += character
    flush()
    return "".join(out)


def decode_modified_utf7(wire):
    out, index = "", 0
    while index < len(wire):
        if wire[index] != "&":
            out += wire[index]
            index += 1
            continue
        end = wire.index("-", index)
        run = wire[index + 1:end]
        if not run:
            out += "&"
        else:
            data = run.replace(",", "/")
            out += base64.b64decode(data + "=" * (-len(data) % 4)).decode("utf-16-be")
        index = end + 1
    return out


def parse_list_line(line):
    text = line.decode()
    attributes = text[1:text.index(")")].lower().split()
    rest = text[text.index(")") + 2:]
    _, _, name = rest.partition(" ")
    return attributes, name[1:-1].replace('\\"', '"').replace("\\\\", "\\") if name.startswith('"') else name


LAYOUT_USER = "dave"
LAYOUT_ACCOUNT = "layout"

# Per layout: where archived and deleted mail goes on the server, the folders Tern does not sync (Gmail's All Mail and
# Important), and what another client names a new folder with (the personal namespace's prefix and separator).
LAYOUTS = {
    "gmail": dict(archive="[Gmail]/All Mail", trash="[Gmail]/Trash", unsynced={"[Gmail]/All Mail", "[Gmail]/Important"},
                  prefix="", separator="/"),
    "cyrus": dict(archive="INBOX.Archive", trash="INBOX.Trash", unsynced=set(), prefix="INBOX.", separator="."),
    "cyrus-bare": dict(archive="INBOX.Archive", trash="INBOX.Trash", unsynced=set(), prefix="INBOX.", separator="."),
    "localized": dict(archive="[Gmail]/Tous les messages", trash="[Gmail]/Corbeille",
                      unsynced={"[Gmail]/Tous les messages", "[Gmail]/Important"}, prefix="", separator="/"),
    "plain": dict(archive="Archive", trash="Trash", unsynced=set(), prefix="", separator="/"),
    "pymap": dict(archive="Archive", trash="Trash", unsynced=set(), prefix="", separator="/"),
}


class LayoutServer:
    """One IMAP server of one layout, with a client for "another client" and helpers to compare with Tern."""

    def __init__(self, name, port, ca, password, starttls=False):
        self.name, self.port, self.ca, self.password, self.starttls = name, port, ca, password, starttls
        self.layout = LAYOUTS[name]
        self.address = f"{LAYOUT_USER}@tern.test"

    def imap(self):
        context = ssl.create_default_context(cafile=self.ca)
        if self.starttls:
            client = imaplib.IMAP4("127.0.0.1", self.port)
            client.starttls(ssl_context=context)
        else:
            client = imaplib.IMAP4_SSL("127.0.0.1", self.port, ssl_context=context)
        client.login(self.address, self.password)
        return client

    def add_account(self, home):
        password_file = pathlib.Path(home) / "password"
        password_file.write_text(self.password + "\n")
        tern(home, "account", "add", LAYOUT_ACCOUNT, "--email", self.address, "--imap", f"127.0.0.1:{self.port}",
             *(["--imap-starttls"] if self.starttls else []), "--smtp", NO_SMTP,
             "--password-command", f"cat {password_file}", "--ca-file", self.ca, check=True)

    def folder_name(self, leaf):
        return self.layout["prefix"] + leaf

    def message_counts(self):
        """STATUS MESSAGES of every selectable folder Tern syncs, by decoded name."""
        client = self.imap()
        try:
            counts = {}
            for line in client.list('""', "*")[1]:
                attributes, wire = parse_list_line(line)
                if "\\noselect" in attributes or "\\nonexistent" in attributes:
                    continue
                name = decode_modified_utf7(wire)
                if name in self.layout["unsynced"]:
                    continue
                _, data = client.status(quote(wire), "(MESSAGES)")
                counts[name] = int(data[0].decode().rsplit("MESSAGES ", 1)[1].rstrip(")"))
            return counts
        finally:
            client.logout()

    def append(self, folder, subject, message_id):
        client = self.imap()
        try:
            message = EmailMessage()
            message["From"], message["To"], message["Subject"] = "zoe@example.org", self.address, subject
            message["Message-ID"], message["Date"] = message_id, format_datetime(datetime.now(timezone.utc))
            message.set_content(f"{subject}.")
            status, detail = client.append(quote(modified_utf7(folder)), "", None, message.as_bytes())
            assert status == "OK", detail
        finally:
            client.logout()

    def holds(self, folder, message_id):
        client = self.imap()
        try:
            client.select(quote(modified_utf7(folder)), readonly=True)
            _, data = client.uid("SEARCH", None, "HEADER", "Message-ID", message_id)
            return bool(data[0].split())
        finally:
            client.logout()
