#!/usr/bin/env python3
"""The peers of `tern-bench sanitize`: nh3 (Python binding of Rust's ammonia) and bleach, on the
same documents, in the same run. Each is given an allow-list close to Tern's (tags, attributes,
http/https/mailto links); neither blocks remote images or trackers or folds quotes, so they do
less work than Tern. Prints one JSON object per tool. `TERN_SANITIZE_PEERS=nh3` times nh3 alone: bleach,
30 times slower, took most of each locked run (issue 38's timed runs)."""
import argparse, json, os, pathlib, resource, time

import bleach
import nh3

parser = argparse.ArgumentParser()
parser.add_argument("folder")
parser.add_argument("--iterations", type=int, default=5)
args = parser.parse_args()
docs = [p.read_text() for p in sorted(pathlib.Path(args.folder).glob("*.html"))]
size = sum(len(d.encode()) for d in docs)

TAGS = {"a", "abbr", "b", "blockquote", "br", "center", "code", "div", "em", "font", "h1", "h2", "h3", "h4", "hr", "i", "img", "li",
        "ol", "p", "pre", "span", "strong", "table", "tbody", "td", "th", "thead", "tr", "u", "ul"}
ATTRIBUTES = {"*": {"style", "class", "align", "width", "height", "dir", "title"}, "a": {"href"}, "img": {"src", "alt"},
              "td": {"valign", "bgcolor"}, "table": {"border", "cellpadding", "cellspacing"}}


def timed(name, function):
    best = None
    for _ in range(args.iterations):
        start = time.perf_counter()
        for doc in docs:
            function(doc)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    print(json.dumps({"tool": name, "documents": len(docs), "bytes": size, "seconds": best,
                      "peakRSSBytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


timed("nh3 (ammonia)", lambda d: nh3.clean(d, tags=TAGS, attributes={k: set(v) for k, v in ATTRIBUTES.items()},
                                          url_schemes={"http", "https", "mailto"}))
PEERS = os.environ.get("TERN_SANITIZE_PEERS", "nh3,bleach").split(",")
if "bleach" in PEERS:
    timed("bleach", lambda d: bleach.clean(d, tags=TAGS, attributes={k: list(v) for k, v in ATTRIBUTES.items()},
                                          protocols=["http", "https", "mailto"], strip=True))
