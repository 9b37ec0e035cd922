"""Issue 37, `tern privacy [--since 30d] [--json]`: per sender and per tracking host, what the mail received tried, from
the local store alone. Mail is planted by IMAP APPEND with known trackers, remote images, tracked links and read-receipt
requests, and the report's figures are compared with a count made from what was planted."""
import imaplib
import time
import uuid
from datetime import datetime, timedelta, timezone

from support.messages import raw_message
from support.servers import user_address
from support.tern import json_of, sync

USER = "bob"


def plant(imap, message, *, days_ago=0):
    when = datetime.now(timezone.utc) - timedelta(days=days_ago)
    imap.append("INBOX", "", imaplib.Time2Internaldate(when.timestamp()), message)


def test_the_report_counts_what_the_planted_mail_tried(servers, home, bob):
    stamp = uuid.uuid4().hex[:8]
    to = user_address(servers, USER)
    shop, deals, old = f"news-{stamp}@shop.example", f"deals-{stamp}@store.example", f"old-{stamp}@old.example"
    pixel, images, fonts, hover = (f"{name}-{stamp}.example" for name in ("px", "img", "fonts", "hover"))
    clicks = f"u{int(stamp, 16) % 10**8}.ct.sendgrid.net"
    planted = [
        # (sender, html, headers, days ago)
        (shop, f"<p>Sale {stamp}</p><img src='https://{pixel}/o.gif' width='1' height='1'>"
               f"<img src='https://{images}/a.png' width='300' height='200'><img src='https://{images}/b.png' width='300' height='200'>",
         {}, 0),
        (shop, f"<style>@font-face {{ font-family: B; src: url(https://{fonts}/b.woff2) }} a:hover {{ background: url(https://{hover}/h.png) }}</style>"
               f"<p>News {stamp} <a href='https://shop.example/new?utm_source=mail&amp;id=3'>New</a></p>", {}, 0),
        (deals, f"<p>Deals {stamp} <a href='https://{clicks}/ls/click?upn=opaque'>Shop</a></p><img src='https://{pixel}/d.gif' width='1' height='1'>",
         {"Disposition-Notification-To": deals}, 0),
        (old, f"<p>Old {stamp}</p>", {"Disposition-Notification-To": old}, 60),
    ]
    for sender, html, headers, days in planted:
        plant(bob, raw_message(to, f"Privacy {stamp}", text=f"plain {stamp}", html=html, sender=sender, headers=headers), days_ago=days)
    sync(home, USER)

    # The count made from what was planted.
    expected_shop = {"sender": shop, "messages": 2, "imageTrackers": 1, "cssTrackers": 1, "fontTrackers": 1, "remoteLoads": 2,
                     "remoteHosts": [{"host": images, "count": 2}], "linksCleaned": 1, "linksTracked": 0, "receiptsRequested": 0}
    expected_deals = {"sender": deals, "messages": 1, "imageTrackers": 1, "cssTrackers": 0, "fontTrackers": 0, "remoteLoads": 0,
                      "remoteHosts": [], "linksCleaned": 0, "linksTracked": 1, "receiptsRequested": 1}
    expected_hosts = {
        pixel: {"host": pixel, "messages": 2, "asTracker": 2, "asTrackedLink": 0, "senders": 2},
        fonts: {"host": fonts, "messages": 1, "asTracker": 1, "asTrackedLink": 0, "senders": 1},
        hover: {"host": hover, "messages": 1, "asTracker": 1, "asTrackedLink": 0, "senders": 1},
        clicks: {"host": clicks, "messages": 1, "asTracker": 0, "asTrackedLink": 1, "senders": 1},
    }

    started = time.monotonic()
    recent = json_of(home, "privacy", "--since", "30d")
    first = time.monotonic() - started
    senders = {entry["sender"]: entry for entry in recent["senders"]}
    assert senders.get(shop) == expected_shop, senders.get(shop)
    assert senders.get(deals) == expected_deals, senders.get(deals)
    assert old not in senders, "older than 30 days"
    hosts = {entry["host"]: entry for entry in recent["trackingHosts"]}
    assert {host: hosts.get(host) for host in expected_hosts} == expected_hosts
    assert images not in hosts, "remote images are not trackers"

    everything = json_of(home, "privacy")
    senders = {entry["sender"]: entry for entry in everything["senders"]}
    assert senders[old]["messages"] == 1 and senders[old]["receiptsRequested"] == 1
    assert senders[shop] == expected_shop and senders[deals] == expected_deals
    assert "since" not in everything and everything["messages"] >= recent["messages"] + 1

    # The facts are stored: a second report sanitizes nothing again (it takes no longer than the first).
    started = time.monotonic()
    again = json_of(home, "privacy", "--since", "30d")
    assert time.monotonic() - started <= first + 1.0
    assert {entry["sender"]: entry for entry in again["senders"]}[shop] == expected_shop
