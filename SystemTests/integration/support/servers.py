"""The test mail servers scripts/mailservers runs: their environment, addresses and free ports beside them."""
import shlex
import socket
import subprocess
import time

from support.tern import MAILSERVERS


def mailserver_env():
    """`scripts/mailservers env` as a dict (ports, CA, password file, domain)."""
    out = subprocess.run([str(MAILSERVERS), "env"], check=True, capture_output=True, text=True).stdout
    env = {}
    for line in out.splitlines():
        key, _, value = line.partition("=")
        env[key] = shlex.split(value)[0] if value else ""
    return env


def user_address(servers, name):
    return f"{name}@{servers['TERN_TEST_DOMAIN']}"


def free_port():
    """A port of 127.0.0.1 nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_port(port, process=None, attempts=200):
    """Returns once 127.0.0.1:`port` accepts a connection; raises when `process` exits first or nothing listens after
    `attempts` tries 50 ms apart."""
    for _ in range(attempts):
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server on port {port} exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")
