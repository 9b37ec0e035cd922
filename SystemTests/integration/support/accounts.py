"""Tern accounts on the test servers."""
from support.servers import user_address
from support.tern import tern

# The account of the web acceptance site (conftest's `app` fixture).
ACCEPTANCE_USER = "carol"

# An SMTP address where nothing listens: for accounts whose tests send nothing.
NO_SMTP = "127.0.0.1:1"


def add_account(home, servers, user, *extra, name=None, email=None, imap_port=None, smtp=None, ca=True):
    """`tern account add` in `home` for the test servers' `user` (account name `name`, default `user`; address `email`,
    default the user's): IMAP over TLS on `imap_port` (the test Dovecot's by default), SMTP at `smtp` ("host:port", the
    test Postfix's implicit-TLS port by default), the test password, the test CA unless `ca` is false, and `extra`
    options."""
    args = ["account", "add", name or user, "--email", email or user_address(servers, user),
            "--imap", f"127.0.0.1:{imap_port or servers['TERN_IMAPS_PORT']}", "--smtp", smtp or f"127.0.0.1:{servers['TERN_SMTPS_PORT']}",
            "--password-command", f"cat {servers['TERN_TEST_PASSWORD_FILE']}", *extra]
    if ca:
        args += ["--ca-file", servers["TERN_TEST_CA"]]
    tern(home, *args, check=True)
