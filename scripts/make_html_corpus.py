#!/usr/bin/env python3
"""Writes a corpus of realistic HTML email bodies (about 50 KB each, deterministic) for
`tern-bench sanitize`: newsletters built from tables and inline styles, replies with quoted
history, receipts; remote images, tracking pixels, look-alike links, conditional comments."""
import argparse, pathlib, random

parser = argparse.ArgumentParser()
parser.add_argument("output")
parser.add_argument("--count", type=int, default=200)
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--tracking-links", action="store_true",
                    help="links as mailers write them (issue 37): campaign parameters, Safe Links wrappers, click trackers")
args = parser.parse_args()
rng = random.Random(args.seed)
out = pathlib.Path(args.output)
out.mkdir(parents=True, exist_ok=True)
samples = pathlib.Path(__file__).resolve().parents[1] / "Tests/HTMLSafetyTests/Samples"
words = ("the quick brown fox jumps over lazy dog release notes pricing update team meeting agenda budget travel "
         "design review launch customer feedback quarterly results invoice shipping").split()


def sentence(n):
    return " ".join(rng.choice(words) for _ in range(n)).capitalize() + "."


def article(i):
    host = rng.choice(["cdn.news.example", "images.shop.example", "mcusercontent.com"])
    return f"""<tr><td class="mcnTextContent" style="padding: 9px 18px; color: #222222; font-family: Helvetica, Arial, sans-serif; font-size: 16px; line-height: 150%; text-align: left;">
<!--[if mso]><table><tr><td width="564"><![endif]-->
<h2 style="display: block; margin: 0; padding: 0; color: #202020; font-size: 22px; font-weight: bold;">{sentence(6)}</h2>
<img align="center" alt="{sentence(3)}" src="https://{host}/img/{i}-{rng.randrange(10**6)}.jpg" width="564" style="max-width: 1200px; padding-bottom: 0; display: inline !important; vertical-align: bottom;" class="mcnImage">
<p style="margin: 10px 0; padding: 0;">{sentence(40)} <a href="https://news.example/track/click?u={rng.randrange(10**9)}&amp;id={i}" target="_blank" style="color: #007c89; font-weight: normal; text-decoration: underline;">{sentence(4)}</a> {sentence(30)}</p>
<p style="margin: 10px 0;">{sentence(35)} <b>{sentence(5)}</b> <i>{sentence(5)}</i></p>
<table border="0" cellpadding="0" cellspacing="0" width="100%" style="min-width:100%;"><tr><td align="center" valign="middle" style="padding: 12px;"><a class="mcnButton" href="https://news.example/go/{i}" style="font-weight: bold; letter-spacing: normal; line-height: 100%; text-align: center; text-decoration: none; color: #FFFFFF; background-color: #007c89; border-radius: 3px; padding: 12px 24px;">Read more</a></td></tr></table>
<!--[if mso]></td></tr></table><![endif]-->
</td></tr>
"""


def newsletter(k):
    head = """<!doctype html><html><head><meta charset="UTF-8"><style type="text/css">p{margin:10px 0;padding:0;} table{border-collapse:collapse;} h1,h2,h3{display:block;margin:0;} img,a img{border:0;height:auto;outline:none;} .mcnPreviewText{display:none !important;} @media only screen and (max-width: 480px){ .mcnImage{width:100% !important;} .mcnTextContent{font-size:14px !important;} }</style></head><body>"""
    body = '<span class="mcnPreviewText" style="display:none; font-size:0px; max-height:0px; opacity:0;">' + sentence(12) + "</span>"
    body += '<center><table align="center" border="0" cellpadding="0" cellspacing="0" width="100%" id="bodyTable"><tr><td align="center" valign="top">'
    body += '<table border="0" cellpadding="0" cellspacing="0" width="600" class="templateContainer">'
    i = 0
    while len(head) + len(body) < 48_000:
        body += article(k * 100 + i)
        i += 1
    body += '</table><img src="https://news.example.us1.list-manage.com/track/open.php?u=1&amp;id=%d" height="1" width="1"></td></tr></table></center></body></html>' % k
    return head + body


def reply(k):
    text = f'<div dir="ltr">{sentence(20)}<br><br>{sentence(15)}</div><div class="gmail_quote">'
    depth = 0
    while len(text) < 45_000:
        text += f'<div class="gmail_attr">On Mon, Nov {rng.randrange(1, 28)}, 2026 Person {depth} &lt;p{depth}@example.org&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0 0 0 .8ex;border-left:1px #ccc solid;padding-left:1ex"><div dir="ltr">'
        text += "".join(f"<p>{sentence(25)} <a href=\"https://docs.example.org/d/{rng.randrange(10**6)}\">https://docs.example.org/d/{depth}</a></p>" for _ in range(8))
        depth += 1
    text += "</div></blockquote>" * depth + "</div>"
    return text + '<img width="0" height="0" src="https://mailtrack.io/trace/mail/%d.png">' % k


for k in range(args.count):
    document = newsletter(k) if k % 3 else reply(k)
    if args.tracking_links:
        # The same documents (the random draws are unchanged), their links rewritten as mailers write them.
        document = (document
                    .replace("&amp;id=", "&amp;utm_source=newsletter&amp;utm_medium=email&amp;utm_campaign=week&amp;id=")
                    .replace('href="https://news.example/go/', 'href="https://nam12.safelinks.protection.outlook.com/?url=https%3A%2F%2Fnews.example%2Fgo%2F')
                    .replace('href="https://docs.example.org/d/', 'href="https://u4821.ct.sendgrid.net/ls/click?upn=d'))
    (out / f"mail-{k:04}.html").write_text(document)
print(args.count, "documents in", out)
