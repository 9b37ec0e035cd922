#!/usr/bin/env python3
"""Fill a test mailbox with realistic generated mail, deterministically.

Used by `scripts/mailservers seed`. The same --seed, --count and --now give the same messages
(byte for byte) in the same folders with the same flags. Messages are stored with IMAP APPEND
(pipelined with LITERAL+), so the server assigns UIDs and INTERNALDATEs as it would for real mail.

What the mail contains, because Tern must handle it:
- reply chains with Message-ID / In-Reply-To / References, Sent mail threaded with the rest;
- chains whose replies lack both headers (threaded by the subject fallback only);
- Re:/Fwd:/AW:/SV:/Antw:/Réf: prefixes, stacked and mixed case;
- multipart/alternative, HTML-only newsletters with tracking pixels and remote images;
- attachments of many types and sizes, inline cid: images, a winmail.dat;
- RFC 2047 headers and bodies in several charsets (UTF-8, ISO-8859-x, KOI8-R, Shift_JIS, ISO-2022-JP, GB2312, Big5, EUC-KR);
- \\Seen, \\Flagged, \\Answered, \\Draft flags; the same message in two folders (INBOX + Starred, INBOX + a label);
- a 60-message thread (count >= 150) and a 500-message thread (count >= 1000).
"""
import argparse
import datetime as dt
import email.charset
import email.utils
import random
import socket
import ssl
import sys
from email.header import Header
from email.mime.application import MIMEApplication
from email.mime.base import MIMEBase
from email.mime.image import MIMEImage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email import encoders

QP_UTF8 = email.charset.Charset("utf-8")
QP_UTF8.body_encoding = email.charset.QP

INBOX, SENT, DRAFTS, TRASH, SPAM, STARRED, ALL, LABEL = (
    "INBOX", "[Gmail]/Sent Mail", "[Gmail]/Drafts", "[Gmail]/Trash", "[Gmail]/Spam",
    "[Gmail]/Starred", "[Gmail]/All Mail", "Receipts")

PEOPLE = [
    ("Maria Schmidt", "maria.schmidt@example.de"), ("John Carter", "john@example.com"),
    ("Priya Natarajan", "priya@example.in"), ("Zoë Dubois", "zoe.dubois@example.fr"),
    ("Lars Øvergaard", "lars@example.no"), ("Ivan Petrov", "ivan@example.ru"),
    ("Yuki Tanaka", "yuki@example.jp"), ("Wei Zhang", "wei@example.cn"),
    ("Kim Min-jun", "minjun@example.kr"), ("Chen Mei-ling", "meiling@example.tw"),
    ("Ana García", "ana.garcia@example.es"), ("Tomasz Kowalski", "tomasz@example.pl"),
    ("Sam O'Neil", "sam.oneil@example.ie"), (None, "noreply@example.org"),
    ("Fatima Al-Sayed", "fatima@example.ae"), ("Björn Lindqvist", "bjorn@example.se"),
]
# Names and subjects in a charset other than UTF-8, as real mail carries them (RFC 2047).
CHARSET_SAMPLES = [
    ("iso-8859-1", "Zoë Dubois", "Réunion de l'équipe à Genève"),
    ("iso-8859-2", "Tomasz Kowalski", "Spotkanie zespołu w Łodzi"),
    ("koi8-r", "Иван Петров", "Отчёт за квартал"),
    ("shift_jis", "田中 由紀", "会議の議事録について"),
    ("iso-2022-jp", "田中 由紀", "来週の予定を確認してください"),
    ("gb2312", "张伟", "项目进度更新"),
    ("big5", "陳美玲", "季度報告草稿"),
    ("euc-kr", "김민준", "다음 주 회의 일정"),
    ("windows-1252", "Björn Lindqvist", "Budget für Q3 – Überblick"),
    ("utf-8", "Fatima Al-Sayed", "مرحبا — plans for the offsite 🌍"),
]
TOPICS = ["Quarterly planning", "Offsite logistics", "Budget review", "Release 2.4 checklist",
          "Design critique", "Hiring loop", "Customer escalation", "Server migration",
          "Conference travel", "Team lunch", "Security audit findings", "Roadmap draft",
          "Invoice question", "Onboarding notes", "Weekly sync", "Bug triage"]
WORDS = ("the a we should could next week plan update review budget team meeting notes draft "
         "please find attached thanks let me know if questions about schedule deadline project "
         "customer feedback release design server migration travel agenda follow up action items "
         "priority timeline estimate proposal approve confirm revise").split()
PREFIXES = ["Re: ", "RE: ", "re: ", "Fwd: ", "FW: ", "Fw: ", "AW: ", "SV: ", "Antw: ", "Réf: ", "Re: Re: ", "RE: AW: "]
TRACKER_HOSTS = ["list-manage.com", "sendgrid.net", "mailchimp.com", "hubspotemail.net",
                 "mailtrack.io", "pixel.mailgun.org", "t.yesware.com", "ct.sendgrid.net"]
ATTACHMENT_TYPES = [
    ("report.pdf", "application", "pdf", b"%PDF-1.7\n"), ("photo.jpg", "image", "jpeg", b"\xff\xd8\xff\xe0"),
    ("diagram.png", "image", "png", b"\x89PNG\r\n\x1a\n"), ("notes.txt", "text", "plain", b""),
    ("data.csv", "text", "csv", b"id,name,value\n"), ("archive.zip", "application", "zip", b"PK\x03\x04"),
    ("slides.pptx", "application", "vnd.openxmlformats-officedocument.presentationml.presentation", b"PK\x03\x04"),
    ("contract.docx", "application", "vnd.openxmlformats-officedocument.wordprocessingml.document", b"PK\x03\x04"),
    ("invite.ics", "text", "calendar", b"BEGIN:VCALENDAR\r\n"), ("winmail.dat", "application", "ms-tnef", b"\x78\x9f\x3e\x22"),
    ("Übersicht Straße.pdf", "application", "pdf", b"%PDF-1.4\n"), ("setup.exe", "application", "x-msdownload", b"MZ"),
]


class Generator:
    def __init__(self, seed, count, user, domain, now):
        self.rng = random.Random(seed)
        self.count = count
        self.me = (user.capitalize() + " Example", f"{user}@{domain}")
        self.domain = domain
        self.now = now
        self.serial = 0
        self.messages = []  # (folders, flags, date, bytes)

    # -- small pieces -------------------------------------------------------------------------
    def message_id(self):
        self.serial += 1
        return f"<seed.{self.serial}.{self.rng.randrange(16**8):08x}@{self.rng.choice(['mail.example.com', 'example.de', self.domain])}>"

    def sentence(self, n=12):
        words = [self.rng.choice(WORDS) for _ in range(n)]
        return " ".join(words).capitalize() + "."

    def paragraph(self, sentences=3):
        return " ".join(self.sentence(self.rng.randint(6, 16)) for _ in range(sentences))

    def addr(self, person, charset=None):
        name, address = person
        if not name:
            return address
        if charset and charset != "utf-8":
            return email.utils.formataddr((str(Header(name, charset)), address))
        return email.utils.formataddr((name, address), charset="utf-8")

    def date_back(self, days_max):
        seconds = self.rng.randint(0, days_max * 86400)
        return self.now - dt.timedelta(seconds=seconds)

    def add(self, msg, folders, flags, date):
        # Boundaries from our own generator, not the email package's global one: same seed, same bytes.
        for part in msg.walk():
            if part.is_multipart():
                part.set_boundary(f"=_tern_{self.rng.randrange(16**12):012x}")
        raw = msg.as_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        self.messages.append((folders, flags, date, raw))

    # -- message shapes ------------------------------------------------------------------------
    def text_part(self, body, charset="utf-8"):
        part = MIMEText(body, "plain", charset)
        return part

    def build_body(self, text, kind):
        if kind == "plain":
            return self.text_part(text)
        html = "<html><body>" + "".join(f"<p>{line}</p>" for line in text.split("\n") if line) + "</body></html>"
        if kind == "html":
            return MIMEText(html, "html", "utf-8")
        alt = MIMEMultipart("alternative")
        alt.attach(self.text_part(text))
        alt.attach(MIMEText(html, "html", "utf-8"))
        return alt

    def attachment(self):
        name, major, minor, magic = self.rng.choice(ATTACHMENT_TYPES)
        size = self.rng.choice([2_000, 8_000, 30_000, 80_000, 150_000]) if self.rng.random() > 0.02 else self.rng.randint(1_000_000, 3_000_000)
        if major == "text":
            content = magic + ("\n".join(self.sentence() for _ in range(max(1, size // 80)))).encode()
            part = MIMEText(content.decode(), minor, "utf-8")
        else:
            part = MIMEBase(major, minor)
            part.set_payload(magic + self.rng.randbytes(size))
            encoders.encode_base64(part)
        part.add_header("Content-Disposition", "attachment", filename=("utf-8", "", name) if not name.isascii() else name)
        return part

    def conversation_message(self, subject, sender, recipients, date, msgid, parent_ids, with_headers, attachments):
        text = f"Hi {recipients[0][0] or 'there'},\n\n{self.paragraph()}\n\n{self.paragraph(2)}\n\nBest,\n{sender[0] or sender[1]}"
        if parent_ids and self.rng.random() < 0.6:
            quoted = "\n".join("> " + line for line in self.paragraph(2).split(". "))
            text += f"\n\nOn {email.utils.format_datetime(date - dt.timedelta(hours=5))}, someone wrote:\n{quoted}"
        body = self.build_body(text, self.rng.choice(["plain", "alternative", "alternative", "html"]))
        if attachments:
            mixed = MIMEMultipart("mixed")
            mixed.attach(body)
            for _ in range(attachments):
                mixed.attach(self.attachment())
            msg = mixed
        else:
            msg = body
        msg["From"] = self.addr(sender)
        msg["To"] = ", ".join(self.addr(r) for r in recipients)
        if self.rng.random() < 0.2:
            msg["Cc"] = self.addr(self.rng.choice(PEOPLE))
        msg["Subject"] = Header(subject, "utf-8") if not subject.isascii() else subject
        msg["Date"] = email.utils.format_datetime(date)
        msg["Message-ID"] = msgid
        if parent_ids and with_headers:
            msg["In-Reply-To"] = parent_ids[-1]
            # Long chains keep the root and the latest ancestors, as mail clients trim them.
            chain = parent_ids if len(parent_ids) <= 10 else parent_ids[:1] + parent_ids[-9:]
            msg["References"] = " ".join(chain)
        msg["MIME-Version"] = "1.0"
        return msg

    def thread(self, size, broken=False, span_days=None):
        topic = self.rng.choice(TOPICS)
        if self.rng.random() < 0.15:
            charset, _, topic = self.rng.choice(CHARSET_SAMPLES)
        others = self.rng.sample(PEOPLE[:13], k=min(len(PEOPLE[:13]), self.rng.randint(1, 4)))
        participants = [self.me] + others
        span = span_days or self.rng.choice([1, 3, 10, 40])
        start = self.date_back(120) - dt.timedelta(days=span)
        ids = []
        for i in range(size):
            sender = participants[0] if (i > 0 and self.rng.random() < 0.3) else self.rng.choice(others)
            recipients = [p for p in participants if p != sender][:3] or [self.me]
            date = start + dt.timedelta(seconds=int(span * 86400 * (i + self.rng.random()) / max(size, 1)))
            subject = topic if i == 0 else self.rng.choice(PREFIXES) + topic
            msgid = self.message_id()
            msg = self.conversation_message(subject, sender, recipients, date, msgid, ids, not broken,
                                            attachments=self.rng.choice([0] * 8 + [1, 2]))
            ids.append(msgid)
            flags = self.flags(sender == self.me)
            folders = [SENT] if sender == self.me else [INBOX]
            self.place(msg, folders, flags, date)

    def flags(self, from_me):
        flags = []
        if from_me or self.rng.random() < 0.7:
            flags.append("\\Seen")
        if self.rng.random() < 0.06:
            flags.append("\\Flagged")
        if not from_me and self.rng.random() < 0.15:
            flags.append("\\Answered")
        return flags

    def place(self, msg, folders, flags, date):
        folders = list(folders)
        if "\\Flagged" in flags and INBOX in folders:
            folders.append(STARRED)  # Gmail shows starred mail in both: one message, two folders
        if INBOX in folders and self.rng.random() < 0.04:
            folders.append(LABEL)
        self.add(msg, folders, flags, date)

    def newsletter(self):
        sender_host = self.rng.choice(["news.example.com", "deals.example.net", "updates.example.org"])
        tracker = self.rng.choice(TRACKER_HOSTS)
        images = "".join(
            f'<img src="https://img.{sender_host}/banner{i}.jpg" width="600" alt="Offer {i}">' for i in range(self.rng.randint(1, 4)))
        html = f"""<!DOCTYPE html><html><head><style>.btn{{background:url(https://img.{sender_host}/bg.png)}}</style></head>
<body style="margin:0"><table width="100%" background="https://img.{sender_host}/tile.gif"><tr><td>
<h1>This week at {sender_host}</h1>{images}<p>{self.paragraph(4)}</p>
<a class="btn" href="https://click.{tracker}/c?u={self.rng.randrange(10**9)}">Read more</a>
<p><a href="https://{sender_host}/unsubscribe">Unsubscribe</a></p>
<img src="https://open.{tracker}/o.gif?id={self.rng.randrange(10**9)}" width="1" height="1" alt="">
<div style="display:none"><img src="https://{tracker}/beacon/{self.rng.randrange(10**9)}.png"></div>
</td></tr></table></body></html>"""
        html_part = MIMEText("", "html")
        html_part.set_payload(html, QP_UTF8)  # newsletters mostly use quoted-printable
        if self.rng.random() < 0.5:
            msg = html_part
        else:
            msg = MIMEMultipart("alternative")
            msg.attach(MIMEText(f"This week at {sender_host}\n\n{self.paragraph(4)}\n", "plain", "utf-8"))
            msg.attach(html_part)
        date = self.date_back(200)
        msg["From"] = email.utils.formataddr((f"{sender_host.split('.')[1].title()} News", f"news@{sender_host}"))
        msg["To"] = self.me[1]
        msg["Subject"] = self.rng.choice(["Your weekly digest", "Deals you'll love", "What's new this week", "Don't miss out"])
        msg["Date"] = email.utils.format_datetime(date)
        msg["Message-ID"] = self.message_id()
        msg["List-Unsubscribe"] = f"<https://{sender_host}/unsubscribe>"
        msg["MIME-Version"] = "1.0"
        folder = SPAM if self.rng.random() < 0.1 else INBOX
        self.place(msg, [folder], self.flags(False), date)

    def charset_message(self):
        charset, name, subject = self.rng.choice(CHARSET_SAMPLES)
        body_text = f"{subject}\n\n{name}"
        try:
            msg = MIMEText(body_text, "plain", charset)
        except (UnicodeEncodeError, LookupError):
            msg = MIMEText(body_text, "plain", "utf-8")
        date = self.date_back(200)
        msg["From"] = email.utils.formataddr((str(Header(name, charset)), f"intl{self.rng.randrange(100)}@example.com"))
        msg["To"] = self.addr(self.me)
        msg["Subject"] = Header(subject, charset)
        msg["Date"] = email.utils.format_datetime(date)
        msg["Message-ID"] = self.message_id()
        msg["MIME-Version"] = "1.0"
        self.place(msg, [INBOX], self.flags(False), date)

    def receipt_with_inline_image(self):
        related = MIMEMultipart("related")
        cid = f"logo{self.rng.randrange(10**6)}@shop.example"
        related.attach(MIMEText(f'<html><body><img src="cid:{cid}" alt="Shop"><p>Order total: {self.rng.randint(5, 500)}.00 EUR</p></body></html>', "html", "utf-8"))
        image = MIMEImage(b"\x89PNG\r\n\x1a\n" + self.rng.randbytes(600), "png")
        image.add_header("Content-ID", f"<{cid}>")
        image.add_header("Content-Disposition", "inline", filename="logo.png")
        related.attach(image)
        date = self.date_back(200)
        related["From"] = "Shop <orders@shop.example>"
        related["To"] = self.me[1]
        related["Subject"] = f"Your order #{self.rng.randrange(10**6)}"
        related["Date"] = email.utils.format_datetime(date)
        related["Message-ID"] = self.message_id()
        related["MIME-Version"] = "1.0"
        self.add(related, [INBOX, LABEL] if self.rng.random() < 0.5 else [LABEL], ["\\Seen"], date)

    def draft(self):
        msg = MIMEText(self.paragraph(), "plain", "utf-8")
        date = self.date_back(10)
        msg["From"] = self.addr(self.me)
        msg["To"] = self.addr(self.rng.choice(PEOPLE))
        msg["Subject"] = "Draft: " + self.rng.choice(TOPICS)
        msg["Date"] = email.utils.format_datetime(date)
        msg["Message-ID"] = self.message_id()
        msg["MIME-Version"] = "1.0"
        self.add(msg, [DRAFTS], ["\\Seen", "\\Draft"], date)

    def trashed(self):
        msg = MIMEText(self.paragraph(), "plain", "utf-8")
        date = self.date_back(60)
        msg["From"] = self.addr(self.rng.choice(PEOPLE))
        msg["To"] = self.addr(self.me)
        msg["Subject"] = "Old: " + self.rng.choice(TOPICS)
        msg["Date"] = email.utils.format_datetime(date)
        msg["Message-ID"] = self.message_id()
        self.add(msg, [TRASH], ["\\Seen"], date)

    # -- the mailbox ---------------------------------------------------------------------------
    def generate(self):
        if self.count >= 1000:
            self.thread(500, span_days=60)
        if self.count >= 150:
            self.thread(60, span_days=20)
        while len(self.messages) < self.count:
            roll = self.rng.random()
            remaining = self.count - len(self.messages)
            if roll < 0.45:
                self.thread(min(remaining, self.rng.choice([1, 2, 2, 3, 4, 5, 8])))
            elif roll < 0.52:
                self.thread(min(remaining, self.rng.randint(2, 4)), broken=True)
            elif roll < 0.70:
                self.newsletter()
            elif roll < 0.80:
                self.charset_message()
            elif roll < 0.87:
                self.receipt_with_inline_image()
            elif roll < 0.90:
                self.draft()
            elif roll < 0.93:
                self.trashed()
            else:
                self.thread(1)
        return self.messages[: self.count]


class Appender:
    """Pipelined IMAP APPEND with LITERAL+ (RFC 7888): one round trip per batch, not per message."""

    def __init__(self, host, port, ca, user, password):
        context = ssl.create_default_context(cafile=ca)
        raw = socket.create_connection((host, port), timeout=60)
        # The test certificate names localhost and 127.0.0.1; verification stays on.
        self.sock = context.wrap_socket(raw, server_hostname="localhost")
        self.buffer = b""
        self.tag = 0
        self.read_line()  # greeting
        self.command(f'LOGIN "{user}" "{password}"')

    def read_line(self):
        while b"\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def next_tag(self):
        self.tag += 1
        return f"s{self.tag}"

    def wait(self, tags):
        pending = set(tags)
        while pending:
            line = self.read_line()
            tag, _, rest = line.decode("utf-8", "replace").partition(" ")
            if tag in pending:
                pending.discard(tag)
                if not rest.startswith("OK"):
                    raise RuntimeError(f"{tag} failed: {rest}")

    def command(self, text):
        tag = self.next_tag()
        self.sock.sendall(f"{tag} {text}\r\n".encode())
        self.wait([tag])

    def append_all(self, items, batch=200):
        for start in range(0, len(items), batch):
            tags, payload = [], []
            for mailbox, flags, date, raw in items[start:start + batch]:
                tag = self.next_tag()
                tags.append(tag)
                when = date.strftime("%d-%b-%Y %H:%M:%S +0000")
                payload.append(f'{tag} APPEND "{mailbox}" ({" ".join(flags)}) "{when}" {{{len(raw)}+}}\r\n'.encode() + raw + b"\r\n")
            self.sock.sendall(b"".join(payload))
            self.wait(tags)

    def close(self):
        try:
            self.command("LOGOUT")
        except Exception:
            pass
        self.sock.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--user", default="alice")
    parser.add_argument("--count", type=int, default=300, help="messages to generate (up to 100000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--now", help="YYYY-MM-DD the dates count back from (default: today, UTC)")
    parser.add_argument("--no-all-mail", action="store_true", help="do not copy every message into [Gmail]/All Mail")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=10993)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--domain", default="tern.test")
    parser.add_argument("--password", required=True)
    parser.add_argument("--dump", help="write the generated messages as .eml files into this directory instead of appending")
    args = parser.parse_args()
    if not 0 < args.count <= 100_000:
        parser.error("--count must be between 1 and 100000")
    now = dt.datetime.strptime(args.now, "%Y-%m-%d") if args.now else dt.datetime.now(dt.timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
    now = now.replace(tzinfo=dt.timezone.utc)
    messages = Generator(args.seed, args.count, args.user, args.domain, now).generate()
    messages.sort(key=lambda m: m[2])  # oldest first: UIDs grow with dates, as on a real server
    if args.dump:
        import os
        os.makedirs(args.dump, exist_ok=True)
        for i, (folders, flags, date, raw) in enumerate(messages):
            with open(os.path.join(args.dump, f"{i:06d}.eml"), "wb") as f:
                f.write(raw)
        print(f"wrote {len(messages)} messages to {args.dump}")
        return
    items = []
    for folders, flags, date, raw in messages:
        targets = list(folders)
        if not args.no_all_mail and not ({SPAM, TRASH, DRAFTS} & set(folders)):
            targets.append(ALL)
        for folder in targets:
            items.append((folder, flags, date, raw))
    appender = Appender(args.host, args.port, args.ca, f"{args.user}@{args.domain}", args.password)
    appender.append_all(items)
    appender.close()
    per_folder = {}
    for folder, *_ in items:
        per_folder[folder] = per_folder.get(folder, 0) + 1
    summary = ", ".join(f"{k} {v}" for k, v in sorted(per_folder.items()))
    print(f"seeded {len(messages)} messages for {args.user}@{args.domain} ({summary})")


if __name__ == "__main__":
    sys.exit(main())
