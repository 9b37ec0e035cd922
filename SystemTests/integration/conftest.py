"""Fixtures for tests against the real test mail servers started by scripts/mailservers."""
import os
import pathlib
import shlex
import socket
import ssl
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAILSERVERS = ROOT / "scripts" / "mailservers"
# The project's own tools the tests use (the fault proxy).
sys.path.insert(0, str(ROOT / "scripts"))


def mailserver_env():
    out = subprocess.run([str(MAILSERVERS), "env"], check=True, capture_output=True, text=True).stdout
    env = {}
    for line in out.splitlines():
        key, _, value = line.partition("=")
        env[key] = shlex.split(value)[0] if value else ""
    return env


@pytest.fixture(scope="session")
def servers():
    """The running test servers (`make test` starts them; started here when run alone)."""
    env = mailserver_env()
    status = subprocess.run([str(MAILSERVERS), "status"], capture_output=True, text=True).stdout
    if "dovecot: running" not in status or "postfix: running" not in status:
        subprocess.run([str(MAILSERVERS), "start"], check=True)
    return env


@pytest.fixture()
def tls_context(servers):
    return ssl.create_default_context(cafile=servers["TERN_TEST_CA"])


def user_address(servers, name):
    return f"{name}@{servers['TERN_TEST_DOMAIN']}"


def free_port():
    """A port of 127.0.0.1 nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
