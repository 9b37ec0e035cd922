"""OAuth 2.0 end to end: `tern account add --gmail` runs the installed-app flow (PKCE, loopback
redirect) against the local test OAuth endpoint, then XOAUTH2 logs in to the real Dovecot (its oauth2
passdb introspects the token at that endpoint) and to Postfix submission (SASL through Dovecot)."""
import json
import os
import pathlib
import sqlite3
import stat
import subprocess
import urllib.request

import pytest

from support.imap import plant_messages
from support.tern import TERN



@pytest.fixture()
def oauth(servers, tmp_path):
    base = servers["TERN_TEST_OAUTH_URL"]
    env = dict(os.environ, TERN_HOME=str(tmp_path / "home"), TERN_TOKEN_STORE="file",
               TERN_OAUTH_AUTHORIZATION_URL=f"{base}/authorize", TERN_OAUTH_TOKEN_URL=f"{base}/token")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    base_env = env

    def run(*args, check=False, env=None):
        return subprocess.run([str(TERN), *args], capture_output=True, text=True, env=dict(base_env, **(env or {})), timeout=60,
                              check=check)

    def start(*args):
        return subprocess.Popen([str(TERN), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def post(path):
        request = urllib.request.Request(f"{base}{path}", data=b"", method="POST")
        return json.load(urllib.request.urlopen(request, timeout=10))

    def stats():
        return json.load(urllib.request.urlopen(f"{base}/admin/stats", timeout=10))

    def sign_in(*args):
        """Runs a tern command that prints an authorization URL, and plays the browser."""
        process = subprocess.Popen([str(TERN), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        url = None
        for line in process.stderr:
            if line.startswith("http"):
                url = line.strip()
                break
        assert url, process.stderr.read()
        assert "code_challenge_method=S256" in url and "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in url
        # The browser: follows the provider's redirect to Tern's loopback listener.
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        assert "signed in" in page or "not completed" in page
        out, err = process.communicate(timeout=60)
        return process.returncode, out, err

    def add(name="gm"):
        return sign_in("account", "add", name, "--gmail", "--email", "alice@tern.test",
                       "--imap", f"127.0.0.1:{servers['TERN_IMAPS_PORT']}",
                       "--smtp", f"127.0.0.1:{servers['TERN_SUBMISSION_PORT']}", "--smtp-starttls",
                       "--ca-file", servers["TERN_TEST_CA"], "--oauth-client-id", "tern-test-client")

    return type("OAuth", (), dict(run=staticmethod(run), start=staticmethod(start), post=staticmethod(post), stats=staticmethod(stats),
                                   sign_in=staticmethod(sign_in), add=staticmethod(add), home=tmp_path / "home"))


def test_gmail_preset_signs_in_and_logs_in_with_xoauth2(oauth):
    code, out, err = oauth.add()
    assert code == 0, err
    account = json.loads(oauth.run("account", "list", "--json", check=True).stdout)[0]
    assert account["auth"] == "oauth2"

    # Tokens: a 0600 file in a 0700 directory, and nowhere in the database.
    secrets = oauth.home / "secrets"
    assert stat.S_IMODE(secrets.stat().st_mode) == 0o700
    token_file = next(secrets.glob("*.json"))
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    tokens = json.loads(token_file.read_text())
    database = next(oauth.home.glob("*.sqlite*"))
    assert tokens["accessToken"].encode() not in database.read_bytes()

    before = oauth.stats()
    imap = oauth.run("imap-check", "gm", "--json")
    assert imap.returncode == 0, imap.stderr
    assert any(f["folderType"] == "inbox" for f in json.loads(imap.stdout)["folders"])
    smtp = oauth.run("smtp-check", "gm", "--json")
    assert smtp.returncode == 0, smtp.stderr
    assert json.loads(smtp.stdout)["authentication"] == "XOAUTH2"
    assert oauth.stats()["introspect_active"] >= before["introspect_active"] + 2


def test_a_rejected_token_is_refreshed_and_a_revoked_sign_in_deactivates(oauth):
    assert oauth.add()[0] == 0
    oauth.post("/admin/expire-access")
    before = oauth.stats()
    imap = oauth.run("imap-check", "gm")
    assert imap.returncode == 0, imap.stderr
    assert oauth.stats()["refresh_token"] == before["refresh_token"] + 1

    oauth.post("/admin/revoke-refresh")
    failed = oauth.run("imap-check", "gm")
    assert failed.returncode == 1
    assert "sign in again" in failed.stderr
    account = json.loads(oauth.run("account", "list", "--json", check=True).stdout)[0]
    assert account["isActive"] is False

    code, out, err = oauth.sign_in("account", "login", "gm")
    assert code == 0, err
    assert json.loads(oauth.run("account", "list", "--json", check=True).stdout)[0]["isActive"] is True
    assert oauth.run("imap-check", "gm").returncode == 0


def test_refused_consent_adds_no_account(oauth, servers):
    code, out, err = oauth.sign_in("account", "add", "nobody", "--gmail", "--email", "nobody@tern.test",
                                   "--oauth-client-id", "tern-test-client",
                                   "--imap", f"127.0.0.1:{servers['TERN_IMAPS_PORT']}", "--smtp", "127.0.0.1:1")
    assert code == 1 and "refused" in err
    assert json.loads(oauth.run("account", "list", "--json", check=True).stdout) == []


def test_concurrent_refreshes_with_rotating_refresh_tokens_keep_the_account(oauth):
    """Two processes start with an expired access token, against a provider that rotates refresh
    tokens and answers slowly: they take turns (a lock per account), the second uses what the first
    stored, and neither meets invalid_grant, so the account stays active (issue 21). Without the
    lock both send the same refresh token, and the second is refused."""
    assert oauth.add()[0] == 0
    token_file = next((oauth.home / "secrets").glob("*.json"))
    tokens = json.loads(token_file.read_text())
    tokens["expiresAt"] = "2000-01-01T00:00:00Z"
    token_file.write_text(json.dumps(tokens))
    oauth.post("/admin/rotate-refresh?on=1")
    oauth.post("/admin/token-delay?seconds=3")
    try:
        oauth.post("/admin/expire-access")
        before = oauth.stats()
        checks = [oauth.start("imap-check", "gm") for _ in range(2)]
        results = [(check.returncode, err) for check in checks for _, err in [check.communicate(timeout=60)]]
        assert [code for code, _ in results] == [0, 0], results
        assert oauth.stats()["refresh_token"] == before["refresh_token"] + 1, "the second used the first one's token"
        assert json.loads(oauth.run("account", "list", "--json", check=True).stdout)[0]["isActive"] is True

        # What is stored is the newest refresh token: the next refresh works too.
        oauth.post("/admin/token-delay?seconds=0")
        oauth.post("/admin/expire-access")
        again = oauth.run("imap-check", "gm")
        assert again.returncode == 0, again.stderr
    finally:
        oauth.post("/admin/rotate-refresh?on=0")
        oauth.post("/admin/token-delay?seconds=0")


def states_of(result):
    return [json.loads(line)["state"] for line in result.stderr.splitlines()
            if line.startswith("{") and json.loads(line)["event"] == "state"]


def test_an_expired_token_during_tern_sync_is_the_token_refresh_state_and_the_sync_goes_on(oauth):
    """FR-SYNC-04 Authenticating → TokenRefresh → Authenticating (issue 20): the login the pool's connection makes
    is reported to the sync that asked for it."""
    assert oauth.add()[0] == 0
    oauth.post("/admin/expire-access")
    synced = oauth.run("sync", "gm", "--json", "--bodies", "none")
    assert synced.returncode == 0, synced.stderr[-2000:]
    assert states_of(synced)[:5] == ["connecting", "authenticating", "tokenRefresh", "authenticating", "syncingFolders"], \
        states_of(synced)


def test_a_refresh_refused_mid_sync_deactivates_the_account_with_the_specs_words_and_loses_nothing(oauth, servers):
    """The sign-in is revoked while changes wait: the sync ends in Error naming the fix, the account is inactive,
    and the waiting change is still there for after the person signs in again."""
    # A conversation to archive of its own: run alone on fresh servers, alice's Inbox is empty.
    plant_messages(servers, "alice", 1, "Revoked mid-sync")
    assert oauth.add()[0] == 0
    assert oauth.run("sync", "gm", "--bodies", "none").returncode == 0
    thread = json.loads(oauth.run("threads", "--json", check=True).stdout)[0]
    # An archive waits for its undo window, then for the sync (no background push), which meets the revoked sign-in.
    archived = oauth.run("archive", f"t{thread['id']}", env={"TERN_NO_BACKGROUND_PUSH": "1"})
    assert archived.returncode == 0, archived.stderr
    oauth.post("/admin/expire-access")
    oauth.post("/admin/revoke-refresh")
    failed = oauth.run("sync", "gm", "--json")
    assert failed.returncode == 1
    assert "tern account login" in failed.stderr, failed.stderr[-2000:]
    [account] = json.loads(oauth.run("status", "--json", check=True).stdout)["accounts"]
    assert account["waiting"]["changes"] + account["waiting"]["failedChanges"] >= 1, account
    assert json.loads(oauth.run("account", "list", "--json", check=True).stdout)[0]["isActive"] is False


def test_smtp_refreshes_an_expired_token_and_sends_once(oauth, servers):
    """FR-SYNC-07: the submission server refuses the expired token; the token is refreshed once and the message
    goes, once."""
    import imaplib
    import ssl
    import uuid
    assert oauth.add()[0] == 0
    oauth.post("/admin/expire-access")
    before = oauth.stats()["refresh_token"]
    subject = f"Refreshed {uuid.uuid4().hex[:8]}"
    sent = oauth.run("send", "--to", "bob@tern.test", "--subject", subject, "--body", "hello", "--undo", "0")
    assert sent.returncode == 0, sent.stderr
    assert oauth.stats()["refresh_token"] == before + 1
    client = imaplib.IMAP4_SSL("127.0.0.1", int(servers["TERN_IMAPS_PORT"]),
                               ssl_context=ssl.create_default_context(cafile=servers["TERN_TEST_CA"]))
    client.login("bob@tern.test", servers["TERN_TEST_PASSWORD"])
    try:
        found = []
        for _ in range(50):
            client.select("INBOX", readonly=True)
            found = client.search(None, "SUBJECT", f'"{subject}"')[1][0].split()
            if found:
                break
            import time
            time.sleep(0.2)
        assert len(found) == 1, found
    finally:
        client.logout()


def test_the_microsoft_preset_signs_in_and_refreshes_at_the_microsoft_endpoints(oauth, servers):
    """Issue 35: `--microsoft` signs in with OAuth (the environment points Microsoft's endpoints at the test server as it
    does Google's), the given servers win over the preset's, and the account refreshes as a Microsoft account."""
    code, out, err = oauth.sign_in("account", "add", "office", "--microsoft", "--email", "alice@tern.test",
                                   "--imap", f"127.0.0.1:{servers['TERN_IMAPS_PORT']}",
                                   "--smtp", f"127.0.0.1:{servers['TERN_SUBMISSION_PORT']}", "--smtp-starttls",
                                   "--ca-file", servers["TERN_TEST_CA"], "--oauth-client-id", "tern-test-client")
    assert code == 0, err
    account = json.loads(oauth.run("account", "list", "--json", check=True).stdout)[0]
    assert account["auth"] == "oauth2" and account["provider"] == "microsoft"
    oauth.post("/admin/expire-access")
    before = oauth.stats()
    imap = oauth.run("imap-check", "office")
    assert imap.returncode == 0, imap.stderr
    assert oauth.stats()["refresh_token"] == before["refresh_token"] + 1
    assert oauth.run("smtp-check", "office").returncode == 0
    refused = oauth.run("account", "add", "x", "--microsoft", "--password-env", "P", "--email", "x@tern.test")
    assert refused.returncode != 0 and "--microsoft signs in with OAuth only" in refused.stderr
