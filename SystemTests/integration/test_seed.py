"""The seeding tool: deterministic, realistic, and really stored on the server."""
import email
import email.policy
import hashlib
import imaplib
import pathlib
import re
import subprocess
import sys

from support.servers import user_address
from support.tern import MAILSERVERS, ROOT

SEED = ROOT / "scripts" / "seed_mail.py"


def dump(tmp_path, name, count=400, seed=7):
    out = tmp_path / name
    subprocess.run([sys.executable, str(SEED), "--ca", "unused", "--password", "unused", "--count", str(count),
                    "--seed", str(seed), "--now", "2026-11-01", "--dump", str(out)], check=True, capture_output=True)
    return sorted(out.iterdir())


def digest(files):
    h = hashlib.sha256()
    for f in files:
        h.update(f.read_bytes())
    return h.hexdigest()


def test_same_seed_gives_same_mail(tmp_path):
    assert digest(dump(tmp_path, "a")) == digest(dump(tmp_path, "b"))
    assert digest(dump(tmp_path, "c", seed=8)) != digest(dump(tmp_path, "d"))


def test_generated_mail_has_the_shapes_tern_must_handle(tmp_path):
    files = dump(tmp_path, "shapes", count=1200)
    assert len(files) == 1200
    messages = [email.message_from_bytes(f.read_bytes(), policy=email.policy.compat32) for f in files]
    raw = [f.read_bytes() for f in files]
    for data in raw:
        assert b"\n" not in data.replace(b"\r\n", b""), "bare LF"
        assert all(len(line) <= 998 for line in data.split(b"\r\n"))
    with_refs = [m for m in messages if m["References"]]
    assert len(with_refs) > 100
    # Replies with neither In-Reply-To nor References (subject fallback only).
    prefixed = [m for m in messages if re.match(r"(?i)(re|aw|sv|antw|fwd?|réf):", str(m["Subject"] or "")) or "=?" in str(m["Subject"] or "")]
    broken = [m for m in prefixed if not m["References"] and not m["In-Reply-To"]]
    assert broken, "no subject-fallback chains"
    charsets = {c.lower() for m in messages for _, c in email.header.decode_header(str(m["Subject"] or "")) if c}
    assert {"koi8-r", "iso-2022-jp", "shift_jis", "gb2312", "big5", "euc-kr"} & charsets, charsets
    assert len(charsets) >= 4, charsets
    types = {part.get_content_type() for m in messages for part in m.walk()}
    assert {"multipart/alternative", "multipart/mixed", "multipart/related", "text/html", "application/pdf"} <= types, types
    html = [part.get_payload(decode=True) for m in messages for part in m.walk() if part.get_content_type() == "text/html"]
    assert any(b'width="1" height="1"' in h for h in html), "no tracking pixel"
    assert any(b"display:none" in h for h in html), "no hidden tracker"
    assert any(b"cid:" in h for h in html), "no inline cid image"
    assert any(b"winmail.dat" in d for d in raw), "no TNEF attachment"
    # The big threads: one References chain of 500 and one of 60 share their root.
    roots = {}
    for m in messages:
        refs = (m["References"] or "").split()
        root = refs[0] if refs else m["Message-ID"]
        roots[root] = roots.get(root, 0) + 1
    sizes = sorted(roots.values(), reverse=True)
    assert sizes[0] == 500 and 60 in sizes, sizes[:5]


def test_seed_stores_mail_on_the_server(servers, tls_context):
    # bob's mailbox: alice's is left for the other tests' smoke mail.
    result = subprocess.run([str(MAILSERVERS), "seed", "--user", "bob", "--count", "200", "--seed", "3"],
                            check=True, capture_output=True, text=True)
    assert "seeded 200 messages" in result.stdout
    client = imaplib.IMAP4_SSL("127.0.0.1", int(servers["TERN_IMAPS_PORT"]), ssl_context=tls_context)
    client.login(user_address(servers, "bob"), servers["TERN_TEST_PASSWORD"])
    counts = {}
    for folder in ["INBOX", '"[Gmail]/Sent Mail"', '"[Gmail]/Starred"', '"[Gmail]/All Mail"', "Receipts"]:
        typ, data = client.status(folder, "(MESSAGES)")
        counts[folder] = int(re.search(rb"MESSAGES (\d+)", data[0]).group(1))
    assert counts["INBOX"] > 100 and counts['"[Gmail]/Sent Mail"'] > 0 and counts['"[Gmail]/All Mail"'] > 150
    # A starred INBOX message is the same message in two folders.
    client.select('"[Gmail]/Starred"', readonly=True)
    typ, data = client.fetch("1", "(BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)] FLAGS)")
    message_id = re.search(rb"Message-ID: (<[^>]+>)", data[0][1], re.I).group(1).decode()
    assert b"\\Flagged" in data[0][0]
    client.select("INBOX", readonly=True)
    typ, found = client.search(None, "HEADER", "Message-ID", message_id)
    assert found[0].split(), "starred message is not also in INBOX"
    client.logout()
