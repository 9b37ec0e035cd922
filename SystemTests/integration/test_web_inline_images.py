"""Inline images in the web composer, in Chromium (issue 34, CO01-16): a PNG pasted and a GIF dropped into the text go
in at the caret as `![name](cid:…)`, a text file dropped beside them stays an attachment; the draft keeps them (the
page reloaded, `tern drafts show`, the server's Drafts copy); sent to bob through the real Postfix, the message Dovecot
delivered has the HTML alternative in a `multipart/related` (RFC 2387) whose images are `inline` with their file names,
each Content-ID (RFC 2392) the HTML's `cid:` names, their bytes as pasted. axe-core finds nothing in the composer with
the images in it. Elements are found by role and accessible name."""
import base64
import os
import re
import struct
import subprocess
import uuid
import zlib

import pytest

from support.accounts import ACCEPTANCE_USER, add_account
from support.browser import axe_violations, by_xpath, chromium
from support.imap import newest_with_subject
from support.servers import free_port
from support.tern import TERN, json_of
from support.waiting import wait_until
from support.web import browser_sign_in, start_serve

USER = ACCEPTANCE_USER
DRAFTS = "[Gmail]/Drafts"


def png_bytes(width=24, height=16):
    """A real PNG (so the composer's browser and the recipient's can draw it), with pixels that differ per run."""
    seed = os.urandom(3)
    rows = b"".join(b"\x00" + bytes(value & 0xFF for x in range(width)
                                     for value in (seed[0] ^ x * 9, seed[1] ^ y * 13, seed[2] ^ (x + y) * 5)) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


# A 1×1 GIF, its colour random so the bytes compared are this run's.
def gif_bytes():
    colour = os.urandom(3)
    return (b"GIF89a\x01\x00\x01\x00\x80\x00\x00" + colour + b"\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00"
            b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")


@pytest.fixture(scope="module")
def app(servers, tmp_path_factory):
    home = tmp_path_factory.mktemp("inline-images-home")
    add_account(home, servers, USER)
    env = dict(os.environ, TERN_HOME=str(home))
    subprocess.run([str(TERN), "settings", "set", "undo-send-delay", "0"], env=env, check=True)
    subprocess.run([str(TERN), "sync", USER], env=env, check=True, capture_output=True)
    port = free_port()
    server = start_serve(home, port)  # with its engine: drafts are uploaded and the queue is pushed
    driver = chromium()
    yield {"home": home, "base": browser_sign_in(driver, port), "servers": servers, "browser": driver}
    driver.quit()
    server.terminate()
    server.wait(timeout=10)


# The page's own events, as a person's paste and drop make them: a DataTransfer holding File objects.
TRANSFER = """
const [files, kind] = arguments;
const data = new DataTransfer();
for (const [encoded, name, type] of files) {
  const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
  data.items.add(new File([bytes], name, { type }));
}
const body = document.getElementById("compose-body");
body.focus();
const event = kind === "paste"
  ? new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true })
  : new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true });
body.dispatchEvent(event);
return event.defaultPrevented;
"""


def transfer(browser, kind, *files):
    encoded = [[base64.b64encode(data).decode(), name, kind_] for data, name, kind_ in files]
    assert browser.execute_script(TRANSFER, encoded, kind), f"the composer took the {kind}"


def composer(browser):
    return by_xpath(browser, "//form[@aria-labelledby='composer-title']")


def attachment_items(browser):
    return [item.text for item in browser.find_elements("xpath", "//ul[@id='compose-attachments']/li")]


def references(text):
    """The `(name, content-id)` of every inline image the text shows."""
    return re.findall(r"!\[((?:[^\]\\]|\\.)*)\]\(cid:([^)\s]+)\)", text)


def server_draft(servers, subject):
    """The copy of the draft in the server's Drafts, once it holds both images."""
    copy, _ = newest_with_subject(servers, USER, subject, folder=DRAFTS,
                                  accept=lambda message: len([part for part in message.walk() if part["Content-ID"]]) == 2)
    return copy


def new_message(app, subject, text):
    """A new message to bob in the composer, `text` typed in its body: the form and the body."""
    browser = app["browser"]
    browser.get(f"{app['base']}/mail?compose=new")
    form = composer(browser)
    by_xpath(browser, "//input[@role='combobox' and @id='compose-to']").send_keys("bob@tern.test,")
    form.find_element("id", "compose-subject").send_keys(subject)
    body = form.find_element("xpath", ".//textarea[@id='compose-body']")
    body.send_keys(text)
    return form, body


def send(browser):
    by_xpath(browser, "//form[@aria-labelledby='composer-title']//button[normalize-space()='Send']").click()
    by_xpath(browser, "//div[@id='toasts']//*[contains(., 'Message sent')]", timeout=30)


def related_parts(message):
    """The `multipart/related` of the HTML alternative: its root and its images."""
    [related] = [part for part in message.walk() if part.get_content_type() == "multipart/related"]
    return related, related.get_payload()


def test_pasted_and_dropped_images_go_inline_survive_the_draft_and_arrive_as_related_parts(app):
    browser, servers = app["browser"], app["servers"]
    subject = f"Inline {uuid.uuid4().hex[:8]}"
    chart, photo = png_bytes(), gif_bytes()
    form, body = new_message(app, subject, "The **chart**: ")

    transfer(browser, "paste", (chart, "chart.png", "image/png"))
    assert wait_until(lambda: len(references(body.get_attribute("value"))) == 1, 10), body.get_attribute("value")
    body.send_keys(" and the photo: ")
    transfer(browser, "drop", (photo, "photo.gif", "image/gif"), (b"plain notes", "notes.txt", "text/plain"))
    assert wait_until(lambda: len(references(body.get_attribute("value"))) == 2 and len(attachment_items(browser)) == 3
                      and not any("Attaching" in item for item in attachment_items(browser)), 10), attachment_items(browser)
    text = body.get_attribute("value")
    (chart_name, chart_id), (photo_name, photo_id) = references(text)
    assert text.startswith(f"The **chart**: ![chart.png](cid:{chart_id}) and the photo: ![photo.gif](cid:{photo_id})"), text
    assert chart_id != photo_id and all(re.fullmatch(r"[\w.]+@[\w.]+", cid) for cid in (chart_id, photo_id))
    items = attachment_items(browser)
    assert [item for item in items if "inline image" in item] == [i for i in items if "chart.png" in i or "photo.gif" in i]
    assert any("notes.txt" in item and "inline image" not in item for item in items), "a text file dropped in the text is attached"
    assert axe_violations(browser) == []

    # Saved, the page reloaded: the text and both images are the draft's.
    form.find_element("xpath", ".//button[normalize-space()='Save draft']").click()
    assert wait_until(lambda: form.find_element("id", "draft-status").text == "Draft saved", 10)
    draft_id = form.find_element("xpath", ".//input[@name='draft']").get_attribute("value")
    browser.refresh()
    form = composer(browser)
    body = form.find_element("xpath", ".//textarea[@id='compose-body']")
    assert references(body.get_attribute("value")) == [("chart.png", chart_id), ("photo.gif", photo_id)]
    assert len([item for item in attachment_items(browser) if "inline image" in item]) == 2
    assert axe_violations(browser) == []
    shown = json_of(app["home"], "drafts", "show", f"d{draft_id}")
    assert sorted((a["filename"], a.get("contentId")) for a in shown["attachments"]) == [
        ("chart.png", chart_id), ("notes.txt", None), ("photo.gif", photo_id)]
    copy = server_draft(servers, subject)
    assert copy is not None, "the server's Drafts has the draft with its images"
    _, parts = related_parts(copy)
    assert [part["Content-ID"] for part in parts[1:]] == [f"<{chart_id}>", f"<{photo_id}>"]

    send(browser)
    message, count = newest_with_subject(servers, "bob", subject)
    assert count == 1, "delivered once"
    assert message.get_content_type() == "multipart/mixed"
    alternative, attached = message.get_payload()
    assert alternative.get_content_type() == "multipart/alternative"
    assert attached.get_filename() == "notes.txt" and attached.get_content_disposition() == "attachment"
    plain, related = alternative.get_payload()
    assert plain.get_content_type() == "text/plain" and related.get_content_type() == "multipart/related"
    assert related.get_param("type") == "text/html"
    html, *images = related.get_payload()
    assert html.get_content_type() == "text/html" and [image.get_content_type() for image in images] == ["image/png", "image/gif"]
    sources = re.findall(r'<img src="cid:([^"]+)" alt="([^"]*)">', html.get_content())
    assert sources == [(chart_id, "chart.png"), (photo_id, "photo.gif")]
    assert "<b>chart</b>" in html.get_content(), "the Markdown subset is as it was"
    for image, cid, name, data in zip(images, (chart_id, photo_id), ("chart.png", "photo.gif"), (chart, photo)):
        assert image["Content-ID"] == f"<{cid}>"
        assert image.get_content_disposition() == "inline" and image.get_filename() == name
        assert image.get_content() == data, f"{name} byte for byte"
    text = plain.get_content()
    assert "The *chart*: [image: chart.png] and the photo: [image: photo.gif]" in text, text


def test_an_image_removed_from_the_list_leaves_the_text_and_the_message(app):
    """Remove takes an inline image's reference out of the text too; one whose reference was deleted by hand is not
    sent (docs/decisions.md, CO01-16)."""
    browser, servers = app["browser"], app["servers"]
    subject = f"Removed {uuid.uuid4().hex[:8]}"
    form, body = new_message(app, subject, "Kept: ")
    transfer(browser, "paste", (png_bytes(), "kept.png", "image/png"))
    assert wait_until(lambda: len(references(body.get_attribute("value"))) == 1, 10)
    body.send_keys(" removed: ")
    transfer(browser, "paste", (png_bytes(), "removed.png", "image/png"))
    body.send_keys(" deleted: ")
    transfer(browser, "paste", (png_bytes(), "deleted.png", "image/png"))
    assert wait_until(lambda: len(references(body.get_attribute("value"))) == 3, 10)
    form.find_element("xpath", ".//button[@aria-label='Remove removed.png']").click()
    assert [name for name, _ in references(body.get_attribute("value"))] == ["kept.png", "deleted.png"]
    # The third reference deleted by hand: the image stays listed but is not sent.
    deleted = [f"![{name}](cid:{cid})" for name, cid in references(body.get_attribute("value")) if name == "deleted.png"][0]
    browser.execute_script("const b = document.getElementById('compose-body'); b.value = b.value.replace(arguments[0], '');"
                           "b.dispatchEvent(new Event('input', { bubbles: true }));", deleted)
    send(browser)
    message, _ = newest_with_subject(servers, "bob", subject)
    assert message.get_content_type() == "multipart/alternative", "no attachment left: no multipart/mixed"
    _, parts = related_parts(message)
    assert [part.get_filename() for part in parts[1:]] == ["kept.png"]
