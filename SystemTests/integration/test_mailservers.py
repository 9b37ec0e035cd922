"""Smoke tests of the local test mail servers: TLS with the generated CA, the Gmail-like layout,
submission through Postfix into Dovecot over LMTP, and what the servers must refuse."""
import imaplib
import os
import smtplib
import socket
import ssl
import shutil
import subprocess
import tempfile
import time
import uuid

import pytest

from support.servers import free_port, user_address
from support.tern import MAILSERVERS


def imap_login(servers, ctx, user="bob"):
    client = imaplib.IMAP4_SSL("127.0.0.1", int(servers["TERN_IMAPS_PORT"]), ssl_context=ctx)
    client.login(user_address(servers, user), servers["TERN_TEST_PASSWORD"])
    return client


def wait_for_message(servers, ctx, message_id, user="bob", timeout=10):
    deadline = time.time() + timeout
    client = imap_login(servers, ctx, user)
    try:
        while time.time() < deadline:
            client.select("INBOX", readonly=True)
            typ, data = client.uid("SEARCH", None, "HEADER", "Message-ID", message_id)
            if data and data[0]:
                uid = data[0].split()[-1]
                typ, fetched = client.uid("FETCH", uid, "(BODY.PEEK[HEADER])")
                return fetched[0][1]
            time.sleep(0.1)
    finally:
        client.logout()
    raise AssertionError(f"{message_id} did not arrive within {timeout}s")


def sample_message(servers, message_id, to="bob"):
    sender = user_address(servers, "alice")
    return (f"From: Alice <{sender}>\r\nTo: <{user_address(servers, to)}>\r\nSubject: smoke test\r\n"
            f"Message-ID: {message_id}\r\nDate: Mon, 02 Nov 2026 10:00:00 +0000\r\n\r\nHello from the smoke test.\r\n").encode()


def test_imaps_login_with_generated_ca(servers, tls_context):
    client = imap_login(servers, tls_context)
    assert client.sock.version() in ("TLSv1.2", "TLSv1.3")
    client.logout()


def test_imaps_certificate_not_trusted_without_ca(servers):
    ctx = ssl.create_default_context()  # system roots only
    with pytest.raises(ssl.SSLCertVerificationError):
        imaplib.IMAP4_SSL("127.0.0.1", int(servers["TERN_IMAPS_PORT"]), ssl_context=ctx)


def test_capabilities_the_clients_rely_on(servers, tls_context):
    client = imap_login(servers, tls_context)
    typ, data = client.capability()  # after login: the greeting lists fewer
    caps = set(data[0].decode().split())
    for needed in ["IDLE", "UIDPLUS", "MOVE", "CONDSTORE", "SPECIAL-USE", "LITERAL+", "ENABLE"]:
        assert needed in caps, needed
    client.logout()


def test_gmail_like_layout(servers, tls_context):
    client = imap_login(servers, tls_context)
    typ, listing = client.list()
    client.logout()
    lines = [line.decode() for line in listing]
    expected = {
        "INBOX": None, "[Gmail]/Sent Mail": "\\Sent", "[Gmail]/Drafts": "\\Drafts", "[Gmail]/Trash": "\\Trash",
        "[Gmail]/Spam": "\\Junk", "[Gmail]/Starred": "\\Flagged", "[Gmail]/All Mail": "\\All",
        "[Gmail]/Important": "\\Important", "Receipts": None,
    }
    for name, attribute in expected.items():
        matching = [line for line in lines if line.endswith(f'"{name}"') or line.endswith(f" {name}")]
        assert matching, f"{name} missing from {lines}"
        if attribute:
            assert attribute in matching[0], matching[0]


class IMAP4FromOtherAddress(imaplib.IMAP4):
    """Dovecot treats a connection whose two ends share an address as secure; 127.0.0.2 is not."""

    def _create_socket(self, timeout):
        return socket.create_connection((self.host, self.port), timeout, source_address=("127.0.0.2", 0))


def test_imap_starttls_and_no_login_in_the_clear(servers, tls_context):
    client = IMAP4FromOtherAddress("127.0.0.1", int(servers["TERN_IMAP_PORT"]))
    assert "LOGINDISABLED" in client.capabilities
    with pytest.raises(imaplib.IMAP4.error):
        client.login(user_address(servers, "bob"), servers["TERN_TEST_PASSWORD"])
    client.shutdown()
    client = IMAP4FromOtherAddress("127.0.0.1", int(servers["TERN_IMAP_PORT"]))
    client.starttls(ssl_context=tls_context)
    client.login(user_address(servers, "bob"), servers["TERN_TEST_PASSWORD"])
    client.logout()


def test_tls_below_1_2_is_refused(servers):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    try:
        ctx.minimum_version = ssl.TLSVersion.TLSv1
        ctx.maximum_version = ssl.TLSVersion.TLSv1_1
        ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
    except (ValueError, ssl.SSLError) as error:
        pytest.skip(f"this OpenSSL cannot offer TLS < 1.2: {error}")
    for port in (servers["TERN_IMAPS_PORT"], servers["TERN_SMTPS_PORT"]):
        with socket.create_connection(("127.0.0.1", int(port)), timeout=5) as raw:
            with pytest.raises((ssl.SSLError, ConnectionResetError)):
                ctx.wrap_socket(raw, server_hostname="localhost")


def test_submission_delivers_into_recipient_inbox(servers, tls_context):
    message_id = f"<smoke-{uuid.uuid4()}@tern.test>"
    with smtplib.SMTP("127.0.0.1", int(servers["TERN_SUBMISSION_PORT"]), timeout=10) as smtp:
        smtp.ehlo()
        assert "auth" not in smtp.esmtp_features, "AUTH offered before STARTTLS"
        smtp.starttls(context=tls_context)
        smtp.ehlo()
        smtp.login(user_address(servers, "alice"), servers["TERN_TEST_PASSWORD"])
        refused = smtp.sendmail(user_address(servers, "alice"), [user_address(servers, "bob")], sample_message(servers, message_id))
        assert refused == {}
    header = wait_for_message(servers, tls_context, message_id)
    assert b"Subject: smoke test" in header
    assert b"Received:" in header


def test_implicit_tls_submission(servers, tls_context):
    message_id = f"<smtps-{uuid.uuid4()}@tern.test>"
    with smtplib.SMTP_SSL("127.0.0.1", int(servers["TERN_SMTPS_PORT"]), context=tls_context, timeout=10) as smtp:
        smtp.login(user_address(servers, "alice"), servers["TERN_TEST_PASSWORD"])
        smtp.sendmail(user_address(servers, "alice"), [user_address(servers, "bob")], sample_message(servers, message_id))
    wait_for_message(servers, tls_context, message_id)


def test_submission_requires_authentication(servers, tls_context):
    with smtplib.SMTP("127.0.0.1", int(servers["TERN_SUBMISSION_PORT"]), timeout=10) as smtp:
        smtp.starttls(context=tls_context)
        smtp.mail(user_address(servers, "alice"))
        code, text = smtp.rcpt(user_address(servers, "bob"))
        assert code >= 500, (code, text)


def test_wrong_password_is_refused(servers, tls_context):
    with smtplib.SMTP_SSL("127.0.0.1", int(servers["TERN_SMTPS_PORT"]), context=tls_context, timeout=10) as smtp:
        with pytest.raises(smtplib.SMTPAuthenticationError):
            smtp.login(user_address(servers, "alice"), "wrong")


def test_unknown_recipient_is_refused_permanently(servers, tls_context):
    with smtplib.SMTP_SSL("127.0.0.1", int(servers["TERN_SMTPS_PORT"]), context=tls_context, timeout=10) as smtp:
        smtp.login(user_address(servers, "alice"), servers["TERN_TEST_PASSWORD"])
        smtp.mail(user_address(servers, "alice"))
        code, text = smtp.rcpt(user_address(servers, "nobody"))
        assert code == 550, (code, text)
        assert b"5.1.1" in text


def test_never_relays_off_this_machine(servers, tls_context):
    with smtplib.SMTP_SSL("127.0.0.1", int(servers["TERN_SMTPS_PORT"]), context=tls_context, timeout=10) as smtp:
        smtp.login(user_address(servers, "alice"), servers["TERN_TEST_PASSWORD"])
        smtp.mail(user_address(servers, "alice"))
        code, text = smtp.rcpt("someone@example.com")
        assert code >= 500, (code, text)


def test_mx_port_delivers_without_auth(servers, tls_context):
    message_id = f"<mx-{uuid.uuid4()}@tern.test>"
    with smtplib.SMTP("127.0.0.1", int(servers["TERN_SMTP_PORT"]), timeout=10) as smtp:
        smtp.sendmail("newsletter@example.org", [user_address(servers, "bob")], sample_message(servers, message_id))
    wait_for_message(servers, tls_context, message_id)


def test_stop_leaves_no_process_behind():
    tmp_path = tempfile.mkdtemp(prefix="tern-ms-")  # short: unix socket paths are limited
    env = dict(os.environ, TERN_MAILSERVERS_DIR=tmp_path, TERN_IMAP_PORT="12143",
               TERN_IMAPS_PORT="12993", TERN_SMTP_PORT="12025", TERN_SUBMISSION_PORT="12587", TERN_SMTPS_PORT="12465",
               TERN_OAUTH_PORT="12080")
    try:
        subprocess.run([str(MAILSERVERS), "start"], check=True, env=env, capture_output=True)
        running = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split()
        assert running, "servers did not start"
    finally:
        subprocess.run([str(MAILSERVERS), "stop"], check=True, env=env, capture_output=True)
    left = subprocess.run(["pgrep", "-af", str(tmp_path)], capture_output=True, text=True).stdout
    assert left == "", f"processes left behind:\n{left}"
    for port in (12143, 12993, 12025, 12587, 12465, 12080):
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    shutil.rmtree(tmp_path)


def test_start_names_whoever_holds_a_port_instead_of_failing_on_a_bind():
    """A developer's own servers left up on the CI's ports used to stop `make test` with Dovecot's
    "Address already in use" in a log: the start now refuses at once, naming the port and its holder."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    state = tempfile.mkdtemp(prefix="tern-ms-")  # short: unix socket paths are limited
    env = dict(os.environ, TERN_MAILSERVERS_DIR=state, TERN_IMAP_PORT=str(free_port()),
               TERN_IMAPS_PORT=str(port))
    try:
        started = subprocess.run([str(MAILSERVERS), "start"], env=env, capture_output=True, text=True, timeout=120)
    finally:
        taken.close()
        subprocess.run([str(MAILSERVERS), "stop"], env=env, capture_output=True)
        shutil.rmtree(state, ignore_errors=True)
    assert started.returncode != 0
    assert f"127.0.0.1:{port} is already taken by python" in started.stdout + started.stderr
