"""Issue 35's certificates a person can judge, against the test Dovecot and Postfix, whose certificate a private CA
signed: without that CA, the add-account screen shows the certificate (server, subject, issuer, validity, SHA-256
fingerprint) and "Trust this certificate" pins it for that host and port (the IMAP server's, then the SMTP server's);
the pins are shown in Settings and removable there; `tern account add --trust-certificate SHA256:<hex>` pins what the
servers present and refuses a fingerprint neither presents; a pinned certificate that changed is refused with both
fingerprints. In Chromium by role and accessible name; axe-core finds no violation."""
import hashlib
import sqlite3
import ssl

from support.browser import axe_violations, by_xpath, fill
from support.servers import user_address
from support.tern import json_of, tern
from support.waiting import wait_until


def server_fingerprint(servers):
    """`SHA256:AB:…` of the test servers' certificate, as Tern shows it."""
    with open(f"{servers['TERN_MAILSERVERS_DIR']}/tls/server.crt") as pem:
        digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem.read())).hexdigest().upper()
    return "SHA256:" + ":".join(digest[index:index + 2] for index in range(0, 64, 2))


def cli_add(home, servers, name, *extra):
    return tern(home, "account", "add", name, "--email", user_address(servers, "bob"),
                "--imap", f"127.0.0.1:{servers['TERN_IMAPS_PORT']}", "--smtp", f"127.0.0.1:{servers['TERN_SUBMISSION_PORT']}",
                "--smtp-starttls", "--password-command", f"cat {servers['TERN_TEST_PASSWORD_FILE']}", *extra)


def test_the_cli_pins_what_the_servers_present_and_refuses_a_changed_certificate(servers, tmp_path):
    fingerprint = server_fingerprint(servers)
    other = "SHA256:" + "ab" * 32
    refused = cli_add(tmp_path, servers, "wrong", "--trust-certificate", other)
    assert refused.returncode != 0
    assert "no server of the account presents" in refused.stderr and "SHA256:" + ":".join(["AB"] * 32) in refused.stderr
    assert fingerprint in refused.stderr, "what each server presents is shown"
    assert json_of(tmp_path, "account", "list") == []

    added = cli_add(tmp_path, servers, "pinned", "--trust-certificate", fingerprint.replace(":", "").replace("SHA256", "sha256:"))
    assert added.returncode == 0, added.stderr
    [account] = json_of(tmp_path, "account", "list")
    assert {(pin["port"], pin["fingerprint"]) for pin in account["trustedCertificates"]} == {
        (int(servers["TERN_IMAPS_PORT"]), fingerprint), (int(servers["TERN_SUBMISSION_PORT"]), fingerprint)}
    imap = tern(tmp_path, "imap-check", "pinned")
    assert imap.returncode == 0, imap.stderr
    smtp = tern(tmp_path, "smtp-check", "pinned")
    assert smtp.returncode == 0, smtp.stderr

    # The server's certificate "changes" (the stored pin is another): refused, both fingerprints named.
    with sqlite3.connect(tmp_path / "tern.sqlite") as database:
        database.execute("UPDATE account SET pinnedCertificates = replace(pinnedCertificates, ?, ?)",
                         (fingerprint.replace("SHA256:", "").replace(":", "").lower(), "cd" * 32))
    changed = tern(tmp_path, "imap-check", "pinned")
    assert changed.returncode == 1
    assert "changed" in changed.stderr and fingerprint in changed.stderr and "SHA256:" + ":".join(["CD"] * 32) in changed.stderr

    forgotten = tern(tmp_path, "account", "set", "pinned", "--forget-certificate", f"127.0.0.1:{servers['TERN_IMAPS_PORT']}")
    assert forgotten.returncode == 0, forgotten.stderr
    [account] = json_of(tmp_path, "account", "list")
    assert [pin["port"] for pin in account["trustedCertificates"]] == [int(servers["TERN_SUBMISSION_PORT"])]
    untrusted = tern(tmp_path, "imap-check", "pinned")
    assert untrusted.returncode == 1 and "not trusted" in untrusted.stderr


def certificate_region(browser, place, timeout=30):
    """The certificate shown for `place` (host:port), by its heading."""
    return by_xpath(browser, f"//section[not(@hidden) and @aria-labelledby='setup-certificate-title']"
                             f"[.//h2[normalize-space()='Certificate of {place}']]", timeout=timeout)


def shown(region, term):
    return region.find_element("xpath", f".//dt[normalize-space()='{term}']/following-sibling::dd[1]").text


def test_a_certificate_judged_and_trusted_on_the_add_account_screen(servers, empty_site):
    browser, home = empty_site["browser"], empty_site["home"]
    fingerprint = server_fingerprint(servers)
    imap_place = f"127.0.0.1:{servers['TERN_IMAPS_PORT']}"
    smtp_place = f"127.0.0.1:{servers['TERN_SMTPS_PORT']}"
    browser.get(f"{empty_site['base']}/accounts/new")
    by_xpath(browser, "//h1[normalize-space()='Add account']")
    fill(browser, "Account name", "work")
    fill(browser, "Email address", user_address(servers, "bob"))
    fill(browser, "Password", servers["TERN_TEST_PASSWORD"])
    browser.find_element("xpath", "//details/summary[normalize-space()='Edit server settings']").click()
    for role, port in (("imap", servers["TERN_IMAPS_PORT"]), ("smtp", servers["TERN_SMTPS_PORT"])):
        browser.find_element("xpath", f"//input[@id='account-{role}-host']").send_keys("127.0.0.1")
        browser.find_element("xpath", f"//input[@id='account-{role}-port']").send_keys(port)
    browser.find_element("xpath", "//button[normalize-space()='Continue']").click()

    region = certificate_region(browser, imap_place)
    alert = browser.find_element("xpath", "//p[@role='alert']").text
    assert "not signed by an authority this computer trusts" in alert and imap_place in alert
    assert shown(region, "Issued by") == "CN=Tern Test CA"
    assert "CN=" in shown(region, "Subject")
    assert shown(region, "Valid from") and shown(region, "Valid until")
    assert shown(region, "SHA-256 fingerprint") == fingerprint
    assert axe_violations(browser) == []
    assert json_of(home, "account", "list") == [], "nothing kept before the person trusts the certificate"

    # Trusted for the IMAP server, the SMTP server's (another port) is asked about in turn.
    region.find_element("xpath", ".//button[normalize-space()='Trust this certificate']").click()
    region = certificate_region(browser, smtp_place)
    assert shown(region, "SHA-256 fingerprint") == fingerprint
    region.find_element("xpath", ".//button[normalize-space()='Trust this certificate']").click()
    assert wait_until(lambda: browser.current_url.endswith("/mail"), timeout=30)
    [account] = json_of(home, "account", "list")
    assert sorted(f"{pin['host']}:{pin['port']}" for pin in account["trustedCertificates"]) == sorted([imap_place, smtp_place])

    # Shown in Settings, and removable there.
    browser.get(f"{empty_site['base']}/settings")
    accounts = by_xpath(browser, "//section[@aria-labelledby='accounts-title']")
    assert fingerprint in accounts.text
    assert axe_violations(browser) == []
    accounts.find_element("xpath", f".//button[@aria-label='Stop trusting the certificate of {imap_place} for work']").click()
    by_xpath(browser, "//p[@role='status' and normalize-space()='The certificate is no longer trusted.']", timeout=10)
    [account] = json_of(home, "account", "list")
    assert [f"{pin['host']}:{pin['port']}" for pin in account["trustedCertificates"]] == [smtp_place]
