"""`tern attachment download` against the real Dovecot (FR-ED-03, FR-SYNC-08, AC-U-10, AC-U-10b): the bytes
arrive exactly, in slices; the spec's warnings are asked on a terminal and refused without one unless --yes;
Ctrl-C on a terminal cancels and keeps nothing; a server that is down is retried (1, 3, 9 s), then given up.
The 500 MB eviction is shown on the real store with a small limit (Tests/MailStoreTests/DownloadAttachmentUseCaseTests)."""
import json
import os
import pty
import re
import select
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from support.messages import raw_message, thread_id_of
from support.servers import user_address
from support.tern import MAILSERVERS, TERN, json_of, tern

USER = "dave"


def plant(servers, imap, attachments):
    stamp = uuid.uuid4().hex[:10]
    imap.append("INBOX", "", None, raw_message(user_address(servers, USER), f"Files {stamp}", message_id=f"<files-{stamp}@example.org>",
                                               attachments=attachments))
    return stamp


def attachment_ids(home, stamp):
    json_of(home, "sync", USER)
    [message] = json_of(home, "thread", f"t{thread_id_of(home, stamp)}")["messages"]
    return {a["filename"]: a for a in message["attachments"]}


def cached_files(home):
    root = Path(home) / "attachments"
    return sorted(p.name for p in root.rglob("*") if p.is_file()) if root.exists() else []


class Terminal:
    """`tern` on a pseudo-terminal, as a person runs it: standard input and error are a terminal."""

    def __init__(self, home, *args):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["TERN_HOME"] = str(home)
            os.execv(str(TERN), [str(TERN), *args])
        self.output = b""

    def read_until(self, needle, timeout=60):
        deadline = time.monotonic() + timeout
        while not (needle.search(self.output) if isinstance(needle, re.Pattern) else needle in self.output):
            assert time.monotonic() < deadline, f"no {needle!r} in {self.output!r}"
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    self.output += os.read(self.fd, 65536)
                except OSError:
                    break
        return self.output

    def write(self, text):
        os.write(self.fd, text.encode())

    def wait(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.2)
                if ready:
                    self.output += os.read(self.fd, 65536)
            except OSError:
                pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, signal.SIGKILL)
        pytest.fail(f"tern did not end: {self.output!r}")


def test_the_bytes_arrive_exactly_in_slices(servers, home, dave):
    data = os.urandom(3 * 1024 * 1024 + 12345)  # seven slices of the base64 text, the last a short one
    stamp = plant(servers, dave, [("data.bin", data), ("notes.txt", b"plain words\n")])
    attachments = attachment_ids(home, stamp)
    assert attachments["data.bin"]["warnings"] == [] and not attachments["data.bin"]["isDownloaded"]
    result = json_of(home, "attachment", "download", f"a{attachments['data.bin']['id']}")
    assert Path(result["path"]).read_bytes() == data
    assert result["size"] == len(data) and result["mimeType"] == "application/octet-stream" and result["warnings"] == []
    assert os.stat(result["path"]).st_mode & 0o077 == 0, "only the user can read what a stranger sent"
    again = attachment_ids(home, stamp)["data.bin"]
    assert again["isDownloaded"]
    # A second download reads the cache (the server is not asked again).
    assert json_of(home, "attachment", "download", f"a{again['id']}")["path"] == result["path"]


def test_warnings_refuse_without_a_terminal_unless_yes(servers, home, dave):
    program = b"MZ" + os.urandom(2000)
    stamp = plant(servers, dave, [("setup.exe", program)])
    attachment = attachment_ids(home, stamp)["setup.exe"]
    refused = tern(home, "attachment", "download", f"a{attachment['id']}")
    assert refused.returncode == 1
    assert "This file is a Windows executable." in refused.stderr and "--yes" in refused.stderr
    assert cached_files(home) == []
    as_json = tern(home, "attachment", "download", f"a{attachment['id']}", "--json")
    assert as_json.returncode == 1 and cached_files(home) == [], "--json never asks, so it refuses too"
    result = json_of(home, "attachment", "download", f"a{attachment['id']}", "--yes")
    assert Path(result["path"]).read_bytes() == program
    assert result["warnings"] == ["This file is a Windows executable."]


def test_a_terminal_asks_and_no_downloads_nothing(servers, home, dave):
    stamp = plant(servers, dave, [("tools.zip", b"PK\x03\x04" + os.urandom(500))])
    attachment = attachment_ids(home, stamp)["tools.zip"]
    declined = Terminal(home, "attachment", "download", f"a{attachment['id']}")
    declined.read_until(b"[y/N]")
    assert b"This archive may contain executable files." in declined.output
    declined.write("n\n")
    assert declined.wait() == 1 and b"not downloaded" in declined.output
    assert cached_files(home) == []
    accepted = Terminal(home, "attachment", "download", f"a{attachment['id']}")
    accepted.read_until(b"[y/N]")
    accepted.write("y\n")
    assert accepted.wait() == 0
    assert len(cached_files(home)) == 1 and cached_files(home)[0].endswith("-tools.zip")


def test_ctrl_c_cancels_and_keeps_nothing(servers, home, dave):
    stamp = plant(servers, dave, [("video.bin", os.urandom(40 * 1024 * 1024))])
    attachment = attachment_ids(home, stamp)["video.bin"]
    download = Terminal(home, "attachment", "download", f"a{attachment['id']}")
    download.read_until(re.compile(rb"\] [1-9][0-9]?% "))  # the bar has moved: bytes are arriving
    os.kill(download.pid, signal.SIGINT)
    assert download.wait() == 130
    assert b"download cancelled; nothing was kept" in download.output
    assert cached_files(home) == [], "neither the partial file nor a final one"
    assert not attachment_ids(home, stamp)["video.bin"]["isDownloaded"]


def test_a_download_retries_while_the_server_is_down_and_succeeds_when_it_is_back(servers, home, dave):
    data = os.urandom(200_000)
    stamp = plant(servers, dave, [("report.bin", data)])
    attachment = attachment_ids(home, stamp)["report.bin"]
    subprocess.run([str(MAILSERVERS), "stop-dovecot"], check=True)
    try:
        env = dict(os.environ, TERN_HOME=str(home))
        download = subprocess.Popen([str(TERN), "attachment", "download", f"a{attachment['id']}", "--json"], env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(2.5)  # refused at once, retried after 1 s, refused again; the next retry comes 3 s later
        assert download.poll() is None, "still retrying"
    finally:
        subprocess.run([str(MAILSERVERS), "start"], check=True, capture_output=True)
    out, err = download.communicate(timeout=60)
    assert download.returncode == 0, err
    assert Path(json.loads(out)["path"]).read_bytes() == data


def test_a_download_gives_up_after_three_retries_and_keeps_nothing(servers, home, dave):
    stamp = plant(servers, dave, [("report.bin", os.urandom(1000))])
    attachment = attachment_ids(home, stamp)["report.bin"]
    subprocess.run([str(MAILSERVERS), "stop-dovecot"], check=True)
    try:
        started = time.monotonic()
        failed = tern(home, "attachment", "download", f"a{attachment['id']}")
        waited = time.monotonic() - started
    finally:
        subprocess.run([str(MAILSERVERS), "start"], check=True, capture_output=True)
    assert failed.returncode == 1 and failed.stderr.strip()
    assert waited >= 13, "the 1, 3 and 9 s backoff ran before giving up"
    assert cached_files(home) == [] and not attachment_ids(home, stamp)["report.bin"]["isDownloaded"]
