"""`tern imap-check` against the real Dovecot, and against TLS servers Tern must refuse."""
import json
import subprocess

import pytest

from support.accounts import NO_SMTP, add_account
from support.servers import free_port, wait_port
from support.tern import tern


@pytest.fixture()
def s_server(servers):
    started = []

    def start(cert, key, *extra):
        port = free_port()
        process = subprocess.Popen(["openssl", "s_server", "-accept", f"127.0.0.1:{port}", "-cert", cert, "-key", key, "-quiet", *extra],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(process)
        wait_port(port, process, attempts=50)
        return port

    yield start
    for process in started:
        process.kill()
        process.wait()


def test_imap_check_lists_capabilities_and_special_use(servers, tmp_path):
    add_account(tmp_path, servers, "bob", smtp=NO_SMTP)
    result = tern(tmp_path, "imap-check", "bob", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert "IDLE" in report["capabilities"]
    folders = {f["path"]: f for f in report["folders"]}
    assert folders["[Gmail]/All Mail"]["folderType"] == "all" and folders["[Gmail]/All Mail"]["synced"] is False
    assert folders["[Gmail]/Important"]["synced"] is False
    assert folders["[Gmail]/Sent Mail"]["folderType"] == "sent"
    assert folders["INBOX"]["folderType"] == "inbox"


def test_imap_check_over_starttls(servers, tmp_path):
    tern(tmp_path, "account", "add", "st", "--email", "bob@tern.test", "--imap", f"localhost:{servers['TERN_IMAP_PORT']}",
         "--imap-starttls", "--smtp", "127.0.0.1:1", "--password-command", f"cat {servers['TERN_TEST_PASSWORD_FILE']}",
         "--ca-file", servers["TERN_TEST_CA"], check=True)
    result = tern(tmp_path, "imap-check", "st")
    assert result.returncode == 0, result.stderr
    assert "INBOX" in result.stdout


def test_untrusted_ca_is_refused(servers, tmp_path):
    add_account(tmp_path, servers, "bob", name="noca", smtp=NO_SMTP, ca=False)
    result = tern(tmp_path, "imap-check", "noca")
    assert result.returncode == 1
    assert "not trusted" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_self_signed_server_is_refused(servers, tmp_path, s_server):
    directory = servers["TERN_MAILSERVERS_DIR"]
    port = s_server(f"{directory}/tls/selfsigned.crt", f"{directory}/tls/selfsigned.key")
    add_account(tmp_path, servers, "bob", name="self", imap_port=port, smtp=NO_SMTP)
    result = tern(tmp_path, "imap-check", "self")
    assert result.returncode == 1
    assert "TLS refused" in result.stderr and "not trusted" in result.stderr


def test_server_below_tls_1_2_is_refused(servers, tmp_path, s_server):
    directory = servers["TERN_MAILSERVERS_DIR"]
    port = s_server(f"{directory}/tls/server.crt", f"{directory}/tls/server.key", "-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0")
    add_account(tmp_path, servers, "bob", name="old", imap_port=port, smtp=NO_SMTP)
    result = tern(tmp_path, "imap-check", "old")
    assert result.returncode == 1
    assert "TLS 1.2" in result.stderr


def test_wrong_password_and_closed_port(servers, tmp_path):
    tern(tmp_path, "account", "add", "bad", "--email", "bob@tern.test", "--imap", f"127.0.0.1:{servers['TERN_IMAPS_PORT']}",
         "--smtp", "127.0.0.1:1", "--password-command", "echo wrong", "--ca-file", servers["TERN_TEST_CA"], check=True)
    result = tern(tmp_path, "imap-check", "bad")
    assert result.returncode == 1 and "authentication failed" in result.stderr
    tern(tmp_path, "account", "add", "closed", "--email", "bob@tern.test", "--imap", "127.0.0.1:1", "--smtp", "127.0.0.1:1",
         "--password-command", "echo x", check=True)
    result = tern(tmp_path, "imap-check", "closed")
    assert result.returncode == 1 and "connection refused" in result.stderr
