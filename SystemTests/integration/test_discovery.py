"""Issue 35, "Discovery, privacy first": `tern account discover` and `tern account add` without --imap/--smtp find the
settings from a test domain's autoconfig (the well-known path), DNS SRV records (the answer truncated over UDP, so asked
again over TCP) and the MX host, and from an ISPDB-compatible database only with --lookup-online (without it, no request
is made); then an account added with discovered settings syncs against the test Dovecot.

The test domains reach the test's own servers through the test-only overrides: `TERN_DISCOVERY_RESOLVE` (HTTPS hosts on
127.0.0.1, as curl's --resolve) and `TERN_DNS_SERVER`."""
import json

import pytest

from support.discovery import DocumentServer, client_config, signed_certificate
from support.servers import user_address
from support.tern import sync, tern

USER = "dave"
WELL_KNOWN = "/.well-known/autoconfig/mail/config-v1.1.xml"
AUTOCONFIG = "/mail/config-v1.1.xml"
DOMAINS = ["wellknown.test", "ispdb.test", "srv.test", "hosted.test"]


@pytest.fixture()
def documents(servers, tmp_path):
    certificate, key = signed_certificate(servers, tmp_path, [name for domain in DOMAINS for name in (domain, f"autoconfig.{domain}")]
                                          + ["autoconfig.tern.test", "tern.test"])
    server = DocumentServer(certificate, key)
    yield server
    server.close()


def discovery_env(documents, dns, domain, **extra):
    """Both autoconfig hosts of `domain` on the document server, DNS from the test's server, and `extra`."""
    return {"TERN_DISCOVERY_RESOLVE": documents.resolve(f"autoconfig.{domain}", domain), "TERN_DNS_SERVER": dns.address, **extra}


def discover(home, servers, address, env, *extra):
    return tern(home, "account", "discover", address, "--ca-file", servers["TERN_TEST_CA"], "--json", *extra, env=env)


def test_autoconfig_from_the_well_known_path(servers, tmp_path, documents, dns):
    documents.documents[("wellknown.test", WELL_KNOWN)] = client_config(
        "imap.%EMAILDOMAIN%", 993, "smtp.wellknown.test", 587, smtp_socket="STARTTLS", username="%EMAILLOCALPART%", name="Well Known")
    result = discover(tmp_path, servers, "jane@wellknown.test", discovery_env(documents, dns, "wellknown.test"))
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["step"] == "autoconfig"
    assert found["location"] == f"https://wellknown.test{WELL_KNOWN}"
    assert found["imap"] == {"host": "imap.wellknown.test", "port": 993, "security": "tls"}
    assert found["smtp"] == {"host": "smtp.wellknown.test", "port": 587, "security": "starttls"}
    assert found["username"] == "jane" and found["providerName"] == "Well Known"
    # Both places are asked at once (autoconfig.<domain>'s document would win); the address itself is never sent; DNS
    # is not asked.
    assert sorted(documents.requests) == sorted([("autoconfig.wellknown.test", AUTOCONFIG), ("wellknown.test", WELL_KNOWN)])
    assert dns.queries == []
    assert "asking https://autoconfig.wellknown.test/mail/config-v1.1.xml" in result.stderr
    assert "https://autoconfig.wellknown.test/mail/config-v1.1.xml answered HTTP 404" in result.stderr


def test_online_database_only_with_consent(servers, tmp_path, documents, dns):
    documents.documents[("localhost", "/v1.1/ispdb.test")] = client_config("127.0.0.1", 993, "127.0.0.1", 465, name="From the database")
    env = discovery_env(documents, dns, "ispdb.test", TERN_ISPDB_URL=f"https://localhost:{documents.port}/v1.1/")
    refused = discover(tmp_path, servers, "jane@ispdb.test", env)
    assert refused.returncode == 1
    assert "no settings found" in refused.stderr and "--lookup-online also asks localhost" in refused.stderr
    assert ("localhost", "/v1.1/ispdb.test") not in documents.requests
    assert ("udp", "_imaps._tcp.ispdb.test", "SRV") in dns.queries

    documents.requests.clear()
    found = discover(tmp_path, servers, "jane@ispdb.test", env, "--lookup-online")
    assert found.returncode == 0, found.stderr
    settings = json.loads(found.stdout)
    assert settings["step"] == "online-database"
    assert settings["location"] == f"https://localhost:{documents.port}/v1.1/ispdb.test"
    assert settings["providerName"] == "From the database"
    # Only the domain is sent to the database, after every private step found nothing.
    assert documents.requests[-1] == ("localhost", "/v1.1/ispdb.test")


def test_srv_records_with_the_answer_truncated_over_udp_and_forged_answers_ignored(servers, tmp_path, documents, dns):
    dns.records[("_imaps._tcp.srv.test", "SRV")] = [(10, 0, 993, "imap.srv.test."), (0, 5, 10993, "primary.srv.test.")]
    dns.records[("_submissions._tcp.srv.test", "SRV")] = [(0, 0, 0, ".")]
    dns.records[("_submission._tcp.srv.test", "SRV")] = [(0, 1, 587, "smtp.srv.test.")]
    dns.truncate.add("_imaps._tcp.srv.test")
    # Every answer over UDP comes after a forged one with another id: the client takes only its own.
    dns.spoof = True
    result = discover(tmp_path, servers, "jane@srv.test", discovery_env(documents, dns, "srv.test"))
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["step"] == "dns"
    # The lowest priority wins; "." says there is no implicit-TLS submission, so STARTTLS on 587.
    assert found["imap"] == {"host": "primary.srv.test", "port": 10993, "security": "tls"}
    assert found["smtp"] == {"host": "smtp.srv.test", "port": 587, "security": "starttls"}
    assert found["username"] == "jane@srv.test"
    assert ("udp", "_imaps._tcp.srv.test", "SRV") in dns.queries and ("tcp", "_imaps._tcp.srv.test", "SRV") in dns.queries


def test_a_domain_whose_mail_google_receives_gets_gmail_settings(servers, tmp_path, documents, dns):
    dns.records[("hosted.test", "MX")] = [(20, "mx.hosted.test."), (1, "aspmx.l.google.com.")]
    result = discover(tmp_path, servers, "jane@hosted.test", discovery_env(documents, dns, "hosted.test"))
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["step"] == "dns" and found["provider"] == "gmail" and found["location"] == "aspmx.l.google.com"
    assert found["imap"] == {"host": "imap.gmail.com", "port": 993, "security": "tls"}


def test_the_provider_table_asks_no_one(tmp_path, servers, documents, dns):
    result = discover(tmp_path, servers, "jane@fastmail.com", discovery_env(documents, dns, "fastmail.com"), "--lookup-online")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["imap"]["host"] == "imap.fastmail.com"
    assert documents.requests == [] and dns.queries == []


def test_an_account_added_with_discovered_settings_syncs(servers, tmp_path, documents, dns):
    # The test servers' own domain publishes its autoconfig: Dovecot and Postfix over TLS on their test ports.
    documents.documents[("autoconfig.tern.test", AUTOCONFIG)] = client_config(
        "127.0.0.1", servers["TERN_IMAPS_PORT"], "127.0.0.1", servers["TERN_SMTPS_PORT"])
    env = discovery_env(documents, dns, "tern.test")
    added = tern(tmp_path, "account", "add", USER, "--email", user_address(servers, USER), "--password-command",
                 f"cat {servers['TERN_TEST_PASSWORD_FILE']}", "--ca-file", servers["TERN_TEST_CA"], "--json", env=env)
    assert added.returncode == 0, added.stderr
    account = json.loads(added.stdout)
    assert account["imap"] == {"host": "127.0.0.1", "port": int(servers["TERN_IMAPS_PORT"]), "security": "tls"}
    assert account["username"] == user_address(servers, USER)
    assert account["discovery"]["step"] == "autoconfig"
    assert account["discovery"]["location"] == f"https://autoconfig.tern.test{AUTOCONFIG}"
    assert "Settings found in the domain's autoconfig document" in added.stderr
    folders, _ = sync(tmp_path, USER)
    assert "INBOX" in folders

    # Explicit flags win over what is found: --smtp given, only IMAP discovered.
    other = tern(tmp_path, "account", "add", "other", "--email", user_address(servers, USER), "--smtp", "127.0.0.1:1",
                 "--password-command", f"cat {servers['TERN_TEST_PASSWORD_FILE']}", "--ca-file", servers["TERN_TEST_CA"], "--json", env=env)
    assert other.returncode == 0, other.stderr
    assert json.loads(other.stdout)["smtp"]["port"] == 1
