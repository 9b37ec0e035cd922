#!/usr/bin/env python3
"""Writes the MIME test corpus: real-world-shaped messages (Gmail, Outlook/Exchange, Apple Mail,
Thunderbird, mailing lists, newsletters, spam, bounces, signed mail, many charsets), each also broken
in the ways real mail is broken, with the expected parse results next to them.

The expectations come from how each message was written, not from Tern's parser, so they are an
independent oracle. Deterministic: running it again writes the same files.

    python3 scripts/make_mime_corpus.py Tests/MIMETests/Corpus
"""
import base64
import json
import os
import quopri
import sys

CRLF = b"\r\n"


def b64(data, width=76):
    text = base64.b64encode(data)
    return CRLF.join(text[i:i + width] for i in range(0, len(text), width)) + CRLF


def qp(text, charset="utf-8"):
    return quopri.encodestring(text.encode(charset)).replace(b"\n", CRLF)


def ew(text, charset="utf-8"):
    return "=?%s?B?%s?=" % (charset, base64.b64encode(text.encode(charset)).decode())


def part(headers, body):
    head = b"".join(f"{k}: {v}".encode("utf-8") + CRLF for k, v in headers)
    return head + CRLF + body


def multipart(boundary, parts, preamble=b"", epilogue=b""):
    out = preamble
    for p in parts:
        out += b"--" + boundary.encode() + CRLF + p
        if not p.endswith(CRLF):
            out += CRLF
    out += b"--" + boundary.encode() + b"--" + CRLF + epilogue
    return out


class Shape:
    """A message: top-level headers, the body bytes, and what a correct parser reads in it."""

    def __init__(self, name, headers, body, plain=None, html=None, attachments=(), subject=None, sender=None,
                 date=None, message_id=None, multipart_boundary=None, transfer="7bit", text_charset="utf-8"):
        self.name = name
        self.headers = headers
        self.body = body
        self.plain = plain          # a phrase the plain body contains (None: no plain body)
        self.html = html            # a phrase the HTML body contains (None: no HTML body)
        self.attachments = sorted(attachments)
        self.subject = subject
        self.sender = sender
        self.date = date
        self.message_id = message_id
        self.boundary = multipart_boundary
        self.transfer = transfer
        self.text_charset = text_charset

    def bytes(self):
        return b"".join(f"{k}: {v}".encode("utf-8") + CRLF for k, v in self.headers) + CRLF + self.body


DATE = "Mon, 05 Jan 2026 10:00:00 +0000"
EPOCH = 1767607200


def std_headers(sender, subject, msgid, extra=(), to="Alice Example <alice@tern.test>", encoded_subject=None, date=DATE):
    headers = [("Return-Path", "<bounce@example.net>"),
               ("Received", "from mail.example.net (mail.example.net [192.0.2.1])\r\n\tby mx.tern.test with ESMTPS id abc123\r\n\tfor <alice@tern.test>; " + date),
               ("From", sender), ("To", to), ("Subject", encoded_subject or subject), ("Date", date),
               ("Message-ID", msgid)]
    headers += list(extra)
    return headers


def shapes():
    s = []
    # 1. Gmail plain + HTML alternative
    b = "000000000000a1b2c3d4e5f60001"
    s.append(Shape("gmail-alternative", std_headers("Maria Schmidt <maria.schmidt@gmail.com>", "Lunch on Friday?", "<CAF=abc123@mail.gmail.com>",
        [("MIME-Version", "1.0"), ("X-Gm-Message-State", "AOJu0Yw"), ("Content-Type", f'multipart/alternative; boundary="{b}"')]),
        multipart(b, [part([("Content-Type", 'text/plain; charset="UTF-8"')], b"Are we still on for lunch on Friday?" + CRLF),
                      part([("Content-Type", 'text/html; charset="UTF-8"')], b'<div dir="ltr">Are we still on for lunch on Friday?</div>' + CRLF)]),
        plain="still on for lunch", html='<div dir="ltr">', subject="Lunch on Friday?", sender="maria.schmidt@gmail.com",
        message_id="<CAF=abc123@mail.gmail.com>", multipart_boundary=b))
    # 2. Gmail reply with gmail_quote, QP for non-ASCII
    b = "000000000000f0e1d2c3b4a50002"
    body_text = "Sounds great — see you there.\n\nOn Mon, Jan 5, 2026 at 10:00 AM Maria <maria@gmail.com> wrote:\n> Are we still on?\n"
    html_text = '<div dir="ltr">Sounds great — see you there.</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Jan 5, 2026 at 10:00 AM Maria wrote:<br></div><blockquote class="gmail_quote">Are we still on?</blockquote></div>\n'
    s.append(Shape("gmail-reply", std_headers("John Carter <john.carter@gmail.com>", "Re: Lunch on Friday?", "<CAG=def456@mail.gmail.com>",
        [("In-Reply-To", "<CAF=abc123@mail.gmail.com>"), ("References", "<CAF=abc123@mail.gmail.com>"), ("MIME-Version", "1.0"),
         ("Content-Type", f'multipart/alternative; boundary="{b}"')]),
        multipart(b, [part([("Content-Type", 'text/plain; charset="UTF-8"'), ("Content-Transfer-Encoding", "quoted-printable")], qp(body_text)),
                      part([("Content-Type", 'text/html; charset="UTF-8"'), ("Content-Transfer-Encoding", "quoted-printable")], qp(html_text))]),
        plain="Sounds great — see you there.", html="gmail_quote", subject="Re: Lunch on Friday?", sender="john.carter@gmail.com",
        message_id="<CAG=def456@mail.gmail.com>", multipart_boundary=b, transfer="quoted-printable"))
    # 3. Gmail with attachment
    b, a = "000000000000aaaa00000003", "000000000000bbbb00000003"
    pdf = b"%PDF-1.7\n" + bytes(range(256)) * 8
    s.append(Shape("gmail-attachment", std_headers("Priya Natarajan <priya@gmail.com>", "Signed contract", "<CAH=ghi789@mail.gmail.com>",
        [("MIME-Version", "1.0"), ("Content-Type", f'multipart/mixed; boundary="{b}"')]),
        multipart(b, [part([("Content-Type", f'multipart/alternative; boundary="{a}"')],
                           multipart(a, [part([("Content-Type", 'text/plain; charset="UTF-8"')], b"The signed contract is attached." + CRLF),
                                         part([("Content-Type", 'text/html; charset="UTF-8"')], b'<div dir="ltr">The signed contract is attached.</div>' + CRLF)])),
                      part([("Content-Type", 'application/pdf; name="contract-signed.pdf"'), ("Content-Disposition", 'attachment; filename="contract-signed.pdf"'),
                            ("Content-Transfer-Encoding", "base64"), ("Content-ID", "<f_lxyz0>"), ("X-Attachment-Id", "f_lxyz0")], b64(pdf))]),
        plain="signed contract is attached", html="signed contract", attachments=["contract-signed.pdf"], subject="Signed contract",
        sender="priya@gmail.com", message_id="<CAH=ghi789@mail.gmail.com>", multipart_boundary=b))
    # 4. Outlook HTML with Latin-1 QP plain
    b = "_000_DB9PR01MB1234EURPRD01prod_"
    plain = "Hallo Team,\n\ndie Zahlen für das Quartal sehen gut aus.\n\nGrüße\nBjörn\n"
    html = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head><body><p class="MsoNormal">die Zahlen für das Quartal<o:p></o:p></p><div id="appendonsend"></div><hr><div id="divRplyFwdMsg"><b>From:</b> Maria</div></body></html>\n'
    s.append(Shape("outlook-latin1", std_headers('"Lindqvist, Björn" <bjorn@contoso.example>', "Quartalszahlen", "<DB9PR01MB1234ABCD@DB9PR01MB1234.eurprd01.prod.outlook.com>",
        [("Thread-Topic", "Quartalszahlen"), ("Thread-Index", "AdmKy7Q=="), ("Content-Language", "de-DE"), ("X-MS-Has-Attach", ""), ("MIME-Version", "1.0"),
         ("Content-Type", f'multipart/alternative; boundary="{b}"')]),
        multipart(b, [part([("Content-Type", 'text/plain; charset="iso-8859-1"'), ("Content-Transfer-Encoding", "quoted-printable")], qp(plain, "iso-8859-1")),
                      part([("Content-Type", 'text/html; charset="iso-8859-1"'), ("Content-Transfer-Encoding", "quoted-printable")], qp(html, "iso-8859-1"))]),
        plain="die Zahlen für das Quartal", html="divRplyFwdMsg", subject="Quartalszahlen", sender="bjorn@contoso.example",
        message_id="<DB9PR01MB1234ABCD@DB9PR01MB1234.eurprd01.prod.outlook.com>", multipart_boundary=b, transfer="quoted-printable", text_charset="iso-8859-1"))
    # 5. Outlook with winmail.dat
    b = "_002_AM0PR02MB5678_"
    s.append(Shape("outlook-tnef", std_headers("Sam O'Neil <sam@contoso.example>", "Agenda attached", "<AM0PR02MB5678@AM0PR02MB5678.eurprd02.prod.outlook.com>",
        [("MIME-Version", "1.0"), ("Content-Type", f'multipart/mixed; boundary="{b}"')]),
        multipart(b, [part([("Content-Type", 'text/plain; charset="us-ascii"')], b"Please find the agenda attached." + CRLF),
                      part([("Content-Type", "application/ms-tnef"), ("Content-Transfer-Encoding", "base64")], b64(b"\x78\x9f\x3e\x22" + bytes(300)))]),
        plain="agenda attached", attachments=["winmail.dat"], subject="Agenda attached", sender="sam@contoso.example",
        message_id="<AM0PR02MB5678@AM0PR02MB5678.eurprd02.prod.outlook.com>", multipart_boundary=b))
    # 6. Outlook related inline image
    b, r = "_004_VI1PR03_", "_003_VI1PR03_"
    png = b"\x89PNG\r\n\x1a\n" + bytes(200)
    s.append(Shape("outlook-inline-image", std_headers("Ana García <ana@contoso.example>", "Logo draft", "<VI1PR03MB9@VI1PR03MB9.eurprd03.prod.outlook.com>",
        [("MIME-Version", "1.0"), ("Content-Type", f'multipart/related; boundary="{r}"; type="multipart/alternative"')]),
        multipart(r, [part([("Content-Type", f'multipart/alternative; boundary="{b}"')],
                           multipart(b, [part([("Content-Type", 'text/plain; charset="us-ascii"')], b"Here is the logo draft [cid:image001.png@01DA1234.ABCD5678]" + CRLF),
                                         part([("Content-Type", 'text/html; charset="us-ascii"')], b'<html><body><p>Here is the logo draft <img src="cid:image001.png@01DA1234.ABCD5678"></p></body></html>' + CRLF)])),
                      part([("Content-Type", 'image/png; name="image001.png"'), ("Content-Description", "image001.png"), ("Content-Disposition", 'inline; filename="image001.png"'),
                            ("Content-ID", "<image001.png@01DA1234.ABCD5678>"), ("Content-Transfer-Encoding", "base64")], b64(png))]),
        plain="logo draft", html="cid:image001.png", attachments=["image001.png"], subject="Logo draft", sender="ana@contoso.example",
        message_id="<VI1PR03MB9@VI1PR03MB9.eurprd03.prod.outlook.com>", multipart_boundary=r))
    # 7. Apple Mail: interleaved text and inline image in mixed
    b = "Apple-Mail=_5E3C8A1B-7F2D-4E6A-9B1C-2D3E4F5A6B7C"
    s.append(Shape("apple-mail-interleaved", std_headers("Zoë Dubois <zoe@icloud.example>", "Photos from the trip", "<5E3C8A1B-7F2D-4E6A-9B1C-2D3E4F5A6B7C@icloud.example>",
        [("Mime-Version", "1.0 (Mac OS X Mail 16.0 \\(3774.300.61.1.2\\))"), ("X-Mailer", "Apple Mail (2.3774.300.61.1.2)"),
         ("Content-Type", f'multipart/mixed; boundary="{b}"')]),
        multipart(b, [part([("Content-Transfer-Encoding", "7bit"), ("Content-Type", "text/plain; charset=us-ascii")], b"First the beach:" + CRLF),
                      part([("Content-Disposition", 'inline; filename="IMG_0001.jpeg"'), ("Content-Type", 'image/jpeg; x-unix-mode=0644; name="IMG_0001.jpeg"'),
                            ("Content-Transfer-Encoding", "base64")], b64(b"\xff\xd8\xff\xe0" + bytes(500))),
                      part([("Content-Transfer-Encoding", "7bit"), ("Content-Type", "text/plain; charset=us-ascii")], CRLF + b"and then the mountains." + CRLF)]),
        plain="and then the mountains", attachments=["IMG_0001.jpeg"], subject="Photos from the trip", sender="zoe@icloud.example",
        message_id="<5E3C8A1B-7F2D-4E6A-9B1C-2D3E4F5A6B7C@icloud.example>", multipart_boundary=b))
    # 8. Thunderbird format=flowed
    flowed = b"This is a rather long line that Thunderbird wraps with a trailing space so \r\nthat it flows back together when read.\r\n\r\n> quoted line \r\n> continues\r\n\r\n-- \r\nIvan\r\n"
    s.append(Shape("thunderbird-flowed", std_headers("Ivan Petrov <ivan@example.ru>", "Flowed text", "<4f3a2b1c-1111-2222-3333-444455556666@example.ru>",
        [("User-Agent", "Mozilla Thunderbird"), ("Content-Language", "en-US"), ("MIME-Version", "1.0"),
         ("Content-Type", "text/plain; charset=UTF-8; format=flowed"), ("Content-Transfer-Encoding", "7bit")]),
        flowed, plain="wraps with a trailing space so that it flows back together", subject="Flowed text", sender="ivan@example.ru",
        message_id="<4f3a2b1c-1111-2222-3333-444455556666@example.ru>"))
    # 9. Mailing list (Mailman footer as a second text part)
    b = "===============1234567890=="
    s.append(Shape("mailing-list", std_headers("Tomasz Kowalski via dev-list <dev-list@lists.example.org>", "[dev-list] Release 2.4 checklist",
        "<20260105100000.GA1234@example.pl>",
        [("Sender", '"dev-list" <dev-list-bounces@lists.example.org>'), ("Reply-To", "dev-list@lists.example.org"), ("List-Id", "Developers <dev-list.lists.example.org>"),
         ("List-Unsubscribe", "<https://lists.example.org/options/dev-list>, <mailto:dev-list-request@lists.example.org?subject=unsubscribe>"),
         ("Precedence", "list"), ("MIME-Version", "1.0"), ("Content-Type", f'multipart/mixed; boundary="{b}"')], to="dev-list@lists.example.org"),
        multipart(b, [part([("Content-Type", "text/plain; charset=utf-8"), ("Content-Transfer-Encoding", "8bit")], "Checklist for 2.4: tests, docs, changelog. Łódź office signs off.\r\n".encode()),
                      part([("Content-Type", 'text/plain; charset="us-ascii"'), ("Content-Transfer-Encoding", "7bit"), ("Content-Disposition", "inline")],
                           b"_______________________________________________\r\ndev-list mailing list\r\ndev-list@lists.example.org\r\n")],
                  preamble=b"This is a multi-part message in MIME format.\r\n"),
        plain="Łódź office signs off", subject="[dev-list] Release 2.4 checklist", sender="dev-list@lists.example.org",
        message_id="<20260105100000.GA1234@example.pl>", multipart_boundary=b, transfer="8bit"))
    # 10. Mailchimp-style HTML-only newsletter (QP)
    html = ('<!DOCTYPE html><html><body><table width="100%"><tr><td><h1>Spring sale</h1><img src="https://gallery.mailchimp.example/banner.jpg" width="600">'
            '<p>Everything is 20% off this week.</p><img src="https://shop.us1.list-manage.com/track/open.php?u=1&id=2" height="1" width="1" alt=""></td></tr></table></body></html>\n')
    s.append(Shape("newsletter-mailchimp", std_headers("Shop News <news@shop.example>", "Spring sale: 20% off", "<0.1.2.3.1D9A.abc@mail123.us1.mcsv.net>",
        [("List-Unsubscribe", "<https://shop.us1.list-manage.com/unsubscribe?u=1>"), ("X-Mailer", "MailChimp Mailer - **CIDabc**"), ("MIME-Version", "1.0"),
         ("Content-Type", 'text/html; charset="utf-8"'), ("Content-Transfer-Encoding", "quoted-printable")]),
        qp(html), html="Everything is 20% off", subject="Spring sale: 20% off", sender="news@shop.example",
        message_id="<0.1.2.3.1D9A.abc@mail123.us1.mcsv.net>", transfer="quoted-printable"))
    # 11. SendGrid alternative with base64 HTML
    b = "5f8e9d0c1b2a"
    s.append(Shape("newsletter-sendgrid", std_headers("Deals <deals@deals.example>", "Your weekly digest", "<abc.def@geopod-ismtpd-1>",
        [("MIME-Version", "1.0"), ("Content-Type", f"multipart/alternative; boundary={b}")]),
        multipart(b, [part([("Content-Transfer-Encoding", "quoted-printable"), ("Content-Type", "text/plain; charset=us-ascii")], qp("Your weekly digest is here.\nView online: https://u123.ct.sendgrid.net/ls/click?x=1\n")),
                      part([("Content-Transfer-Encoding", "base64"), ("Content-Type", "text/html; charset=us-ascii")],
                           b64(b'<html><body><p>Your weekly digest is here.</p><img src="https://u123.ct.sendgrid.net/wf/open?upn=abc" alt="" width="1" height="1" border="0" style="height:1px !important;width:1px !important"></body></html>'))]),
        plain="weekly digest is here", html="wf/open", subject="Your weekly digest", sender="deals@deals.example",
        message_id="<abc.def@geopod-ismtpd-1>", multipart_boundary=b, transfer="base64"))
    # 12. Spam: windows-1251 subject, display name spoofing
    spam_subject = "Вы выиграли приз"
    s.append(Shape("spam-cyrillic", std_headers('"PayPal Security" <support@paypa1-secure.example>', spam_subject, "<1234.5678@spam.example>",
        [("MIME-Version", "1.0"), ("Content-Type", 'text/html; charset="windows-1251"'), ("Content-Transfer-Encoding", "base64"), ("X-Priority", "1")],
        encoded_subject=ew(spam_subject, "windows-1251"), to="undisclosed-recipients:;"),
        b64('<html><body><p>Поздравляем! Нажмите <a href="http://198.51.100.7/win">здесь</a></p></body></html>'.encode("windows-1251")),
        html="Поздравляем", subject=spam_subject, sender="support@paypa1-secure.example", message_id="<1234.5678@spam.example>",
        transfer="base64", text_charset="windows-1251"))
    # 13-17. CJK and Cyrillic charsets, single part
    for name, charset, subject_text, body_text, enc in [
        ("japanese-iso2022jp", "iso-2022-jp", "会議の議事録", "会議の議事録を送ります。よろしくお願いします。", "7bit"),
        ("chinese-gb2312", "gb2312", "项目进度更新", "项目进度更新：本周完成了测试。", "base64"),
        ("russian-koi8r", "koi8-r", "Отчёт за квартал", "Отчёт за квартал во вложении.", "8bit"),
        ("korean-euckr", "euc-kr", "다음 주 회의", "다음 주 회의 일정을 확인해 주세요.", "base64"),
        ("taiwan-big5", "big5", "季度報告", "季度報告草稿已完成。", "base64"),
    ]:
        raw = body_text.encode(charset) + CRLF
        body = b64(raw) if enc == "base64" else raw
        s.append(Shape(name, std_headers(f"{ew('送信者' if charset == 'iso-2022-jp' else 'Sender', charset)} <sender@{charset.replace('_', '-')}.example>", subject_text,
            f"<{name}.1@example.com>", [("MIME-Version", "1.0"), ("Content-Type", f"text/plain; charset={charset}"), ("Content-Transfer-Encoding", enc)],
            encoded_subject=ew(subject_text, charset)), body, plain=body_text, subject=subject_text,
            sender=f"sender@{charset.replace('_', '-')}.example", message_id=f"<{name}.1@example.com>", transfer=enc, text_charset=charset))
    # 18. Forwarded message/rfc822
    b = "fwd-boundary-18"
    inner = part([("From", "Original Sender <orig@example.com>"), ("Subject", "Original topic"), ("Date", DATE), ("Message-ID", "<orig@example.com>"),
                  ("Content-Type", "text/plain; charset=utf-8")], b"This is the original message." + CRLF)
    s.append(Shape("forwarded-rfc822", std_headers("Wei Zhang <wei@example.cn>", "Fwd: Original topic", "<fwd18@example.cn>",
        [("MIME-Version", "1.0"), ("Content-Type", f'multipart/mixed; boundary="{b}"')]),
        multipart(b, [part([("Content-Type", "text/plain; charset=utf-8")], b"See the message below." + CRLF),
                      part([("Content-Type", "message/rfc822"), ("Content-Disposition", "attachment")], inner)]),
        plain="See the message below", attachments=["Original topic.eml"], subject="Fwd: Original topic", sender="wei@example.cn",
        message_id="<fwd18@example.cn>", multipart_boundary=b))
    # 19. Calendar invite
    b, a = "cal-mixed-19", "cal-alt-19"
    ics = b"BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nSUMMARY:Planning\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    s.append(Shape("calendar-invite", std_headers("Kim Min-jun <minjun@example.kr>", "Invitation: Planning @ Tue", "<cal19@google.example>",
        [("MIME-Version", "1.0"), ("Content-Type", f'multipart/mixed; boundary="{b}"')]),
        multipart(b, [part([("Content-Type", f'multipart/alternative; boundary="{a}"')],
                           multipart(a, [part([("Content-Type", "text/plain; charset=UTF-8")], b"You have been invited to Planning." + CRLF),
                                         part([("Content-Type", "text/html; charset=UTF-8")], b"<p>You have been invited to Planning.</p>" + CRLF),
                                         part([("Content-Type", 'text/calendar; charset="UTF-8"; method=REQUEST')], ics)])),
                      part([("Content-Type", 'application/ics; name="invite.ics"'), ("Content-Disposition", 'attachment; filename="invite.ics"'),
                            ("Content-Transfer-Encoding", "base64")], b64(ics))]),
        plain="invited to Planning", html="invited to Planning", attachments=["attachment-1.3.ics", "invite.ics"], subject="Invitation: Planning @ Tue",
        sender="minjun@example.kr", message_id="<cal19@google.example>", multipart_boundary=b))
    # 20. S/MIME signed
    b = "----=_smime_20"
    s.append(Shape("smime-signed", std_headers("Lars Øvergaard <lars@example.no>", "Signed statement", "<smime20@example.no>",
        [("MIME-Version", "1.0"), ("Content-Type", f'multipart/signed; protocol="application/pkcs7-signature"; micalg=sha-256; boundary="{b}"')]),
        multipart(b, [part([("Content-Type", "text/plain; charset=utf-8")], "Jeg bekrefter avtalen.\r\n".encode()),
                      part([("Content-Type", 'application/pkcs7-signature; name="smime.p7s"'), ("Content-Transfer-Encoding", "base64"),
                            ("Content-Disposition", 'attachment; filename="smime.p7s"')], b64(bytes(120)))]),
        plain="Jeg bekrefter avtalen", attachments=["smime.p7s"], subject="Signed statement", sender="lars@example.no", message_id="<smime20@example.no>",
        multipart_boundary=b))
    # 21. PGP/MIME signed
    b = "pgp-21-boundary"
    s.append(Shape("pgp-signed", std_headers("Fatima Al-Sayed <fatima@example.ae>", "Key rotation", "<pgp21@example.ae>",
        [("MIME-Version", "1.0"), ("Content-Type", f'multipart/signed; micalg=pgp-sha256; protocol="application/pgp-signature"; boundary="{b}"')]),
        multipart(b, [part([("Content-Type", "text/plain; charset=us-ascii")], b"Rotating my key next week." + CRLF),
                      part([("Content-Type", 'application/pgp-signature; name="signature.asc"'), ("Content-Description", "OpenPGP digital signature")],
                           b"-----BEGIN PGP SIGNATURE-----\r\n\r\niQEzBAEBCAAdFiEE\r\n-----END PGP SIGNATURE-----\r\n")]),
        plain="Rotating my key", attachments=["signature.asc"], subject="Key rotation", sender="fatima@example.ae", message_id="<pgp21@example.ae>",
        multipart_boundary=b))
    # 22. Bounce (DSN)
    b = "dsn-22/mx.tern.test"
    s.append(Shape("bounce-dsn", std_headers("Mail Delivery System <MAILER-DAEMON@mx.tern.test>", "Undelivered Mail Returned to Sender", "<dsn22@mx.tern.test>",
        [("Auto-Submitted", "auto-replied"), ("MIME-Version", "1.0"), ("Content-Type", f'multipart/report; report-type=delivery-status; boundary="{b}"')]),
        multipart(b, [part([("Content-Description", "Notification"), ("Content-Type", "text/plain; charset=us-ascii")], b"I'm sorry to have to inform you that your message could not be delivered." + CRLF),
                      part([("Content-Description", "Delivery report"), ("Content-Type", "message/delivery-status")], b"Reporting-MTA: dns; mx.tern.test\r\n\r\nFinal-Recipient: rfc822; nobody@example.com\r\nAction: failed\r\nStatus: 5.1.1\r\n"),
                      part([("Content-Description", "Undelivered Message Headers"), ("Content-Type", "text/rfc822-headers")], b"From: alice@tern.test\r\nSubject: hello\r\n")]),
        plain="could not be delivered", attachments=["attachment-2.bin", "attachment-3.bin"], subject="Undelivered Mail Returned to Sender",
        sender="MAILER-DAEMON@mx.tern.test", message_id="<dsn22@mx.tern.test>", multipart_boundary=b))
    # 23. Latin-1 QP single part
    s.append(Shape("latin1-qp", std_headers("Zoë Dubois <zoe@example.fr>", "Réunion", "<latin23@example.fr>",
        [("MIME-Version", "1.0"), ("Content-Type", "text/plain; charset=ISO-8859-1"), ("Content-Transfer-Encoding", "quoted-printable")],
        encoded_subject="=?ISO-8859-1?Q?R=E9union?="), qp("La réunion est déplacée à jeudi.\n", "iso-8859-1"),
        plain="La réunion est déplacée à jeudi.", subject="Réunion", sender="zoe@example.fr", message_id="<latin23@example.fr>",
        transfer="quoted-printable", text_charset="iso-8859-1"))
    # 24. RFC 6532 raw UTF-8 headers and 8bit body
    s.append(Shape("utf8-headers-8bit", std_headers("Jörg Müller <jörg@bücher.example>", "Grüße aus Köln", "<utf8-24@bücher.example>",
        [("MIME-Version", "1.0"), ("Content-Type", "text/plain; charset=utf-8"), ("Content-Transfer-Encoding", "8bit")]),
        "Viele Grüße aus Köln ☕\r\n".encode(), plain="Viele Grüße aus Köln ☕", subject="Grüße aus Köln", sender="jörg@bücher.example",
        message_id="<utf8-24@bücher.example>", transfer="8bit"))
    # 25. Long References chain folded
    refs = " ".join(f"<ref{i}@example.com>" for i in range(40))
    s.append(Shape("long-references", std_headers("John Carter <john@example.com>", "Re: Re: Re: Budget review", "<ref40@example.com>",
        [("In-Reply-To", "<ref39@example.com>"), ("References", refs.replace("> <", ">\r\n <")), ("MIME-Version", "1.0"), ("Content-Type", "text/plain; charset=us-ascii")]),
        b"Agreed on the final numbers." + CRLF, plain="Agreed on the final numbers", subject="Re: Re: Re: Budget review", sender="john@example.com",
        message_id="<ref40@example.com>"))
    # 26. RFC 2231 filename continuations
    b = "rfc2231-26"
    s.append(Shape("rfc2231-filename", std_headers("Yuki Tanaka <yuki@example.jp>", "Files", "<f26@example.jp>",
        [("MIME-Version", "1.0"), ("Content-Type", f"multipart/mixed; boundary={b}")]),
        multipart(b, [part([("Content-Type", "text/plain")], b"Two files." + CRLF),
                      part([("Content-Type", "application/pdf"), ("Content-Disposition", "attachment;\r\n filename*0*=UTF-8''%E4%BC%9A%E8%AD%B0;\r\n filename*1*=%E8%B3%87%E6%96%99;\r\n filename*2=\".pdf\""),
                            ("Content-Transfer-Encoding", "base64")], b64(b"%PDF-1.4\n")),
                      part([("Content-Type", "text/csv"), ("Content-Disposition", "attachment; filename*=iso-8859-1'de'Gr%FC%DFe.csv")], b"a,b\r\n1,2\r\n")]),
        plain="Two files", attachments=["Grüße.csv", "会議資料.pdf"], subject="Files", sender="yuki@example.jp", message_id="<f26@example.jp>",
        multipart_boundary=b))
    # 27. RFC 2047 in a quoted filename (non-standard, common)
    b = "ew-27"
    s.append(Shape("encoded-word-filename", std_headers("Chen Mei-ling <meiling@example.tw>", "報告", "<ew27@example.tw>",
        [("MIME-Version", "1.0"), ("Content-Type", f"multipart/mixed; boundary={b}")], encoded_subject=ew("報告")),
        multipart(b, [part([("Content-Type", "text/plain; charset=utf-8")], "附件是報告。\r\n".encode()),
                      part([("Content-Type", f'application/vnd.openxmlformats-officedocument.wordprocessingml.document; name="{ew("季度報告.docx")}"'),
                            ("Content-Disposition", f'attachment; filename="{ew("季度報告.docx")}"'), ("Content-Transfer-Encoding", "base64")], b64(b"PK\x03\x04" + bytes(64)))]),
        plain="附件是報告", attachments=["季度報告.docx"], subject="報告", sender="meiling@example.tw", message_id="<ew27@example.tw>", multipart_boundary=b))
    # 28. Many attachment types
    b = "many-28"
    files = [("slides.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"), ("archive.zip", "application/zip"),
             ("photo.png", "image/png"), ("data.json", "application/json"), ("setup.exe", "application/x-msdownload")]
    s.append(Shape("many-attachments", std_headers("Björn Lindqvist <bjorn@example.se>", "Everything for the release", "<m28@example.se>",
        [("MIME-Version", "1.0"), ("Content-Type", f"multipart/mixed; boundary={b}")]),
        multipart(b, [part([("Content-Type", "text/plain; charset=utf-8")], b"All the release files." + CRLF)] +
                  [part([("Content-Type", f'{t}; name="{n}"'), ("Content-Disposition", f'attachment; filename="{n}"'), ("Content-Transfer-Encoding", "base64")], b64(bytes(100 + i)))
                   for i, (n, t) in enumerate(files)]),
        plain="All the release files", attachments=[n for n, _ in files], subject="Everything for the release", sender="bjorn@example.se",
        message_id="<m28@example.se>", multipart_boundary=b))
    # 29. Digest: parts default to message/rfc822
    b = "digest-29"
    msg = lambda i: part([("From", f"member{i}@example.org"), ("Subject", f"Topic {i}"), ("Content-Type", "text/plain")], f"Message {i} of the digest.\r\n".encode())
    s.append(Shape("digest", std_headers("digest-list <list@lists.example.org>", "Digest, Vol 12, Issue 3", "<digest29@lists.example.org>",
        [("MIME-Version", "1.0"), ("Content-Type", f'multipart/mixed; boundary="{b}"')]),
        multipart(b, [part([("Content-Type", "text/plain")], b"Today's topics: Topic 1, Topic 2" + CRLF),
                      # Digest parts have empty part headers: the type defaults to message/rfc822.
                      part([("Content-Type", 'multipart/digest; boundary="inner-29"')], multipart("inner-29", [CRLF + msg(1), CRLF + msg(2)]))]),
        plain="Today's topics", attachments=["Topic 1.eml", "Topic 2.eml"], subject="Digest, Vol 12, Issue 3", sender="list@lists.example.org",
        message_id="<digest29@lists.example.org>", multipart_boundary=b))
    # 30. Old-style message without MIME headers
    s.append(Shape("plain-no-mime", [("From", "postmaster@old.example"), ("To", "alice@tern.test"), ("Subject", "Old school"), ("Date", "Mon, 5 Jan 26 10:00:00 GMT"),
                                     ("Message-Id", "<old30@old.example>")],
        b"Plain text from a very old mailer." + CRLF, plain="very old mailer", subject="Old school", sender="postmaster@old.example", message_id="<old30@old.example>"))
    return s


def crlf_to_lf(data):
    return data.replace(CRLF, b"\n")


BREAKAGES = ["pristine", "lf-only", "missing-final-boundary", "bad-base64", "bad-qp", "lying-charset", "missing-date",
             "malformed-date", "missing-message-id", "header-garbage"]


def apply(shape, breakage):
    data = shape.bytes()
    expect = {
        "from": shape.sender, "subject": shape.subject, "date": EPOCH, "messageId": shape.message_id,
        "plainContains": shape.plain, "htmlContains": shape.html, "hasPlain": shape.plain is not None, "hasHTML": shape.html is not None,
        # Pristine messages parse without any problem; broken ones report at least `problemKinds`.
        "attachments": shape.attachments, "problemKinds": [], "noProblems": breakage == "pristine",
    }
    if breakage == "lf-only":
        data = crlf_to_lf(data)
    elif breakage == "missing-final-boundary":
        if shape.boundary:
            closing = b"--" + shape.boundary.encode() + b"--"
            index = data.rfind(closing)
            data = data[:index]
            expect["problemKinds"] = ["multipart"]
        else:
            data = data + b"\r\n\r\ntrailing text after the body\r\n" if shape.plain is None else data
    elif breakage == "bad-base64":
        # Junk inside base64 bodies and padding dropped.
        lines = data.split(CRLF)
        out = []
        in_b64 = False
        for line in lines:
            if line.lower().startswith(b"content-transfer-encoding: base64"):
                in_b64 = True
            elif in_b64 and line.startswith(b"--"):
                in_b64 = False
            if in_b64 and len(line) == 76 and line.isascii():
                line = line[:10] + b"*!" + line[10:]
            if in_b64 and line.endswith(b"=") and b":" not in line:
                line = line.rstrip(b"=")
            out.append(line)
        data = CRLF.join(out)
    elif breakage == "bad-qp":
        if b"quoted-printable" in data:
            data = data.replace(b"=\r\n", b"= \r\n", 1) + b""
            expect["htmlContains"] = expect["htmlContains"]
    elif breakage == "lying-charset":
        if shape.text_charset == "utf-8" and shape.transfer in ("7bit", "8bit", "quoted-printable") and (shape.plain or "").isascii() is False:
            data = data.replace(b"charset=utf-8", b"charset=us-ascii").replace(b'charset="UTF-8"', b'charset="us-ascii"').replace(b"charset=UTF-8", b"charset=us-ascii")
    elif breakage == "missing-date":
        data = remove_header(data, b"Date")
        expect["date"] = None
        expect["problemKinds"] = ["missingHeader"]
    elif breakage == "malformed-date":
        data = replace_header(data, b"Date", b"Date: 32/13/2026 25:61")
        expect["date"] = None
        expect["problemKinds"] = ["malformedDate"]
    elif breakage == "missing-message-id":
        data = remove_header(data, b"Message-ID")
        data = remove_header(data, b"Message-Id")
        expect["messageId"] = None
        expect["problemKinds"] = ["missingHeader"]
    elif breakage == "header-garbage":
        # A Latin-1 byte in a raw header and a line that is not a header field.
        data = data.replace(b"\r\nTo: ", b"\r\nX-Garbage: caf\xe9 \xff\xfe\r\nthis line is not a header\r\nTo: ", 1)
        expect["problemKinds"] = ["malformedHeader"]
    return data, expect


def remove_header(data, name):
    head, sep, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    out, skipping = [], False
    for line in lines:
        if line[:1] in (b" ", b"\t") and skipping:
            continue
        skipping = line.lower().startswith(name.lower() + b":")
        if not skipping:
            out.append(line)
    return b"\r\n".join(out) + sep + body


def replace_header(data, name, replacement):
    head, sep, body = data.partition(b"\r\n\r\n")
    lines = [replacement if line.lower().startswith(name.lower() + b":") else line for line in head.split(b"\r\n")]
    return b"\r\n".join(lines) + sep + body


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else "Tests/MIMETests/Corpus"
    os.makedirs(target, exist_ok=True)
    for name in os.listdir(target):
        if name.endswith(".eml"):
            os.remove(os.path.join(target, name))
    expectations = {}
    count = 0
    for number, shape in enumerate(shapes(), start=1):
        for breakage in BREAKAGES:
            data, expect = apply(shape, breakage)
            filename = f"{number:02d}-{shape.name}--{breakage}.eml"
            with open(os.path.join(target, filename), "wb") as f:
                f.write(data)
            expectations[filename] = expect
            count += 1
    with open(os.path.join(target, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expectations, f, ensure_ascii=False, indent=1, sort_keys=True)
    print(f"wrote {count} messages to {target}")


if __name__ == "__main__":
    main()
