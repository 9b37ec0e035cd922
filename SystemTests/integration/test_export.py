"""Issue 36, the original message: `tern export ID` writes the bytes exactly as the server has them (fetched on demand,
compared byte for byte with `BODY[]` read by Python's imaplib), to standard output or `--output`; `tern export --folder F
--mbox FILE` writes the folder as mboxrd, which Python's mailbox module reads back to the same messages, each body line
starting with ">*From " given one more ">"."""
import mailbox
import os
import subprocess
import uuid

from support.messages import raw_message
from support.servers import user_address
from support.tern import TERN, json_of, sync, tern

USER = "dave"


def test_export_is_byte_for_byte_the_servers_body_and_a_folder_exports_as_mbox(servers, home, dave, tmp_path):
    stamp = uuid.uuid4().hex[:8]
    folder = f"Export{stamp}"
    assert dave.create(folder)[0] == "OK"
    raws = [
        raw_message(user_address(servers, USER), f"Export {stamp} one", "From the start of a line.\n>From quoted already.\nEnd.",
                    attachments=[("data.bin", bytes(range(256)) * 4)]),
        raw_message(user_address(servers, USER), f"Export {stamp} two", "Plain text, caf\u00e9.", html="<p>Hello</p>"),
    ]
    for raw in raws:
        assert dave.append(folder, "(\\Seen)", None, raw)[0] == "OK"
    sync(home, USER)
    [hit] = [hit for hit in json_of(home, "search", f"Export {stamp} one") if hit["subject"] == f"Export {stamp} one"]

    dave.select(folder, readonly=True)
    uids = dave.uid("SEARCH", None, "ALL")[1][0].split()
    server_bytes = [dave.uid("FETCH", uid, "(BODY.PEEK[])")[1][0][1] for uid in uids]

    # Standard output as bytes: a text reading would turn CRLF into LF.
    exported = subprocess.run([str(TERN), "export", f"m{hit['emailId']}"], capture_output=True, env=dict(os.environ, TERN_HOME=str(home)),
                              timeout=60)
    assert exported.returncode == 0, exported.stderr
    output = tmp_path / "one.eml"
    tern(home, "export", f"m{hit['emailId']}", "--output", str(output), check=True)
    assert output.read_bytes() == server_bytes[0]
    assert exported.stdout == server_bytes[0]

    mbox_path = tmp_path / "folder.mbox"
    result = tern(home, "export", "--folder", folder, "--mbox", str(mbox_path))
    assert result.returncode == 0 and "2 messages" in result.stderr, result.stderr
    text = mbox_path.read_bytes()
    assert text.count(b"\nFrom MAILER-DAEMON ") + text.startswith(b"From MAILER-DAEMON ") == 2
    assert b"\n>From the start of a line." in text and b"\n>>From quoted already." in text
    messages = list(mailbox.mbox(str(mbox_path)))
    assert [m["Subject"] for m in messages] == [f"Export {stamp} one", f"Export {stamp} two"]

    missing = tern(home, "export", "m999999")
    assert missing.returncode == 1 and "not found" in missing.stderr
