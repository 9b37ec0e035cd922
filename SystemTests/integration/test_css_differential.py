"""The sanitizer's CSS against a second CSS Syntax Level 3 parser (issue 21): style sheets and style
attributes, generated from CSS's grammar and then mutated at random (unclosed functions, blocks and
strings, stray braces and quotes, comments, escapes, nested at-rules), go through `tern sanitize`, and
tinycss2 reads what comes out. Every declaration it finds must be on the sanitizer's allow-list with a
value the sanitizer allows, every rule must stay in its block (no rule or declaration where the
sanitizer wrote none, no parse error), and every selector must keep the exclusion of the interface's
markers. A finding is a parsing differential: the sanitizer meant one thing, a browser reads another.
Cleaning the output again must change nothing.

The inputs are the same on every run (fixed seeds); TERN_CSS_FUZZ_SEED adds another round."""
import html
import html.parser
import os
import random
import re

import pytest
import tinycss2

from support.tern import ROOT, sanitized

SOURCE = (ROOT / "Sources" / "HTMLSafety" / "Sanitizer" / "CSSSanitizer.swift").read_text()
MARKERS = (ROOT / "Sources" / "HTMLSafety" / "Sanitizer" / "InterfaceMarkers.swift").read_text()


def swift_list(name, text):
    """The strings of a `static let NAME = ASCIIKeywordSet([...])` (or array) in the Swift source."""
    body = re.search(r"static let " + name + r" = (?:ASCIIKeywordSet\()?\[(.*?)\]", text, re.S).group(1)
    return re.findall(r'"([^"]*)"', body)


ALLOWED_PROPERTIES = set(swift_list("allowedProperties", SOURCE))
ALLOWED_FUNCTIONS = set(swift_list("allowedFunctions", SOURCE))
EXCLUSION = ":not(:where(" + ",".join(swift_list("selectors", MARKERS)) + "))"
FORBIDDEN_WORDS = ["expression(", "javascript:", "vbscript:", "behavior", "-moz-binding", "@import", "<"]

VECTOR = """a { color: rgb( }
) ' { font-family: 'x; position: fixed; z-index: 2147483647; top: 0; left: 0; width: 100vw; height: 100vh; content: "x"; y' }
} b { color: red }"""

SELECTORS = ["a", "p", "div", ".x", "#y", "td.c", "h1, h2", "div > p", "a:hover", "*", "ul li", "p + p", "a::before", "p:first-line",
             "[title='x']", "a[href^=http]", ":not(.x)", "li:nth-child(2n+1)", ".tern-quote", "span.tern-blocked-image",
             "details > summary", "a.tern-link-mismatch", "&", "a:not(", "x|y", "--x:y", "a >", "<b>", "u+a", ".a.b#c", "body",
             "html", ":root", "img.px", "a" + EXCLUSION, "p" + EXCLUSION + "::after"]
DANGEROUS = ["position", "z-index", "top", "left", "content", "behavior", "-moz-binding", "background-image", "src", "--x",
             "filter", "cursor", "transform", "animation", "pointer-events", "clip-path", "mask", "list-style-image"]
VALUES = ["red", "1px", "0", "100vw", "100vh", "fixed", "absolute", "sticky", "relative", "static", "none", "hidden", "0.5",
          "#fff", "rgb(1, 2, 3)", "rgba(0,0,0,.5)", "calc(1px + (2px * 3))", "url(https://t.example/p.gif)",
          "url('https://t.example/q.png')", "url(data:image/png;base64,AAAA)", "url(\"data:image/svg+xml,<svg>\")",
          "url(javascript:alert(1))", "expression(alert(1))", "image-set('https://t.example/a.png' 1x)", "var(--x)",
          "attr(title)", "linear-gradient(red, blue)", "'Helvetica Neue', Arial", "\"x;y\"", "'a}b'", "1px solid red",
          "inline !important", "block!important", "rgb(", "'x", "\"", "}", "{", ")", "(", "[", "]", ";", "/*", "*/", "\\",
          "\\7d", "<!--", "-->", "@media", "u+a", "1px/**/solid", "url(x y)", "url(", "ur\\6c(https://t.example/e.png)",
          "-webkit-box", "2147483647", "'</style><script>x</script>'"]
NOISE = list("{}()[]'\";:/*\\@!<>,.#&|~+\n\t ") + ["/*", "*/", "<!--", "-->", "url(", "rgb(", "\\\n", "@media x{", "}}", "\"'"]


def declaration(rng):
    prop = rng.choice(sorted(ALLOWED_PROPERTIES)) if rng.random() < 0.7 else rng.choice(DANGEROUS)
    value = " ".join(rng.choice(VALUES) for _ in range(rng.randint(1, 3)))
    return f"{prop}: {value}"


def declarations(rng):
    return "; ".join(declaration(rng) for _ in range(rng.randint(1, 5)))


def rule(rng, depth=0):
    roll = rng.random()
    if roll < 0.12 and depth < 3:
        inner = " ".join(rule(rng, depth + 1) for _ in range(rng.randint(1, 3)))
        condition = rng.choice(["(max-width: 600px)", "screen and (min-width:0)", "only screen", "(display: grid)", "x{", "(a"])
        return f"@{rng.choice(['media', 'supports', 'MEDIA', 'font-face', 'keyframes k', 'document url(x)'])} {condition} {{ {inner} }}"
    if roll < 0.18:
        return rng.choice(["@import url(https://t.example/i.css);", "@charset \"utf-8\";", "@namespace x url(y);",
                           "@font-face { font-family: x; src: url(https://t.example/f.woff) }", "<!--", "-->", ";"])
    if roll < 0.25:  # CSS nesting
        return f"{rng.choice(SELECTORS)} {{ {declarations(rng)}; {rng.choice(SELECTORS)} {{ {declarations(rng)} }} }}"
    return f"{rng.choice(SELECTORS)} {{ {declarations(rng)} }}"


def sheet(rng):
    return "\n".join(rule(rng) for _ in range(rng.randint(1, 6)))


def mutate(rng, text):
    for _ in range(rng.randint(1, 6)):
        at = rng.randint(0, len(text))
        roll = rng.random()
        if roll < 0.5:
            text = text[:at] + rng.choice(NOISE) + text[at:]
        elif roll < 0.8:
            text = text[:at] + text[at + rng.randint(1, 12):]
        else:
            end = min(len(text), at + rng.randint(1, 30))
            text = text[:at] + text[at:end] + text[at:]
    return text


def documents(seed, count):
    """Style sheets and attributes: a third as generated, the rest mutated (the vector among them)."""
    rng = random.Random(seed)
    result = []
    for index in range(count):
        css, style = sheet(rng), declarations(rng)
        if index % 3:
            css = mutate(rng, VECTOR if index % 7 == 0 else css)
            style = mutate(rng, style)
        result.append(f"<style>{css}</style><p style=\"{html.escape(style)}\">x</p><a href=https://a.example class=k>www.b.example</a>")
    return result


class StyleCollector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.sheets, self.attributes, self._in_style = [], [], False

    def handle_starttag(self, tag, attrs):
        self._in_style = tag == "style"
        if self._in_style:
            self.sheets.append("")
        for name, value in attrs:
            if name == "style":
                self.attributes.append(value or "")

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.sheets[-1] += data


def text(nodes):
    """The CSS of parsed nodes, or what a parse error says."""
    return "; ".join(f"parse error: {node.message}" for node in nodes if node.type == "error") or tinycss2.serialize(nodes)


def url_allowed(url, allow_remote):
    url = url.strip().lower()
    if url.startswith("data:image/") and "svg" not in url.split(",")[0]:
        return True
    # As URLPolicy (and a browser's URL parser) reads it, `https:/x` is remote too.
    return allow_remote and re.match(r"https?:", url) is not None


def check_value(tokens, prop, allow_remote, problems):
    for token in tokens:
        kind = token.type
        if kind in ("whitespace", "comment", "ident", "number", "percentage", "dimension", "hash", "string", "unicode-range"):
            continue
        if kind == "literal" and token.value in (",", "/", "+", "-", "*"):
            continue
        if kind == "url":
            if not url_allowed(token.value, allow_remote):
                problems.append(f"url({token.value}) in {prop}")
            continue
        if kind == "function":
            name = token.lower_name
            if name not in ALLOWED_FUNCTIONS:
                problems.append(f"function {name}() in {prop}")
            elif name == "url":
                strings = [t for t in token.arguments if t.type not in ("whitespace", "comment")]
                if len(strings) != 1 or strings[0].type != "string" or not url_allowed(strings[0].value, allow_remote):
                    problems.append(f"url() {text(token.arguments)} in {prop}")
            check_value(token.arguments, prop, allow_remote, problems)
            continue
        if kind == "() block":
            check_value(token.content, prop, allow_remote, problems)
            continue
        problems.append(f"{kind} {text([token])!r} in the value of {prop}")


def check_declarations(items, allow_remote, problems, where):
    for item in items:
        if item.type in ("whitespace", "comment"):
            continue
        if item.type != "declaration":
            problems.append(f"{item.type} {text([item])!r} inside {where}")
            continue
        if item.lower_name not in ALLOWED_PROPERTIES:
            problems.append(f"declaration {item.lower_name} in {where}")
            continue
        value = text(item.value).lower()
        for word in FORBIDDEN_WORDS:
            if word in value:
                problems.append(f"{word} in {item.lower_name}: {value}")
        if item.lower_name == "position" and value.strip() not in ("static", "relative"):
            problems.append(f"position: {value}")
        check_value(item.value, item.lower_name, allow_remote, problems)


def check_selectors(prelude, problems):
    written = text(prelude)
    selectors, current = [], []
    for token in prelude:
        if token.type in ("{} block", "error", "at-keyword") or token == ";":
            problems.append(f"{token.type} in the selector {written!r}")
        if token == ",":
            selectors.append(current)
            current = []
        else:
            current.append(token)
    selectors.append(current)
    for selector in selectors:
        one = text(selector)
        if one.count(EXCLUSION) != 1:
            problems.append(f"a selector without the marker exclusion: {one!r}")
        if "tern-" in one.replace(EXCLUSION, "").lower():
            problems.append(f"a marker named by {one!r}")


def check_rules(items, allow_remote, problems, depth):
    for item in items:
        if item.type in ("whitespace", "comment"):
            continue
        if item.type == "qualified-rule":
            check_selectors(item.prelude, problems)
            check_declarations(tinycss2.parse_blocks_contents(item.content), allow_remote, problems, "a style rule")
        elif item.type == "at-rule" and item.lower_at_keyword in ("media", "supports") and item.content is not None:
            for token in item.prelude:
                if token.type in ("{} block", "[] block", "error", "string", "url", "function"):
                    problems.append(f"{token.type} in @{item.lower_at_keyword} {text(item.prelude)!r}")
            check_rules(tinycss2.parse_blocks_contents(item.content), allow_remote, problems, depth + 1)
        else:
            problems.append(f"{item.type} {text([item])[:80]!r} at depth {depth}")


def sanitize(paths, allow_remote):
    return [result["html"] for result in sanitized(paths, allow_remote)]


def run_round(tmp_path, seed, count, allow_remote):
    inputs = documents(seed, count)
    paths = []
    for index, document in enumerate(inputs):
        path = tmp_path / f"in-{seed}-{index}.html"
        path.write_text(document)
        paths.append(path)
    outputs = sanitize(paths, allow_remote)
    assert len(outputs) == len(inputs)
    failures = []
    again_paths = []
    for index, (document, output) in enumerate(zip(inputs, outputs)):
        collector = StyleCollector()
        collector.feed(output)
        problems = []
        for css in collector.sheets:
            check_rules(tinycss2.parse_stylesheet(css), allow_remote, problems, 0)
        for style in collector.attributes:
            check_declarations(tinycss2.parse_blocks_contents(style), allow_remote, problems, "a style attribute")
        if problems:
            failures.append(f"input {document!r}\noutput {output!r}\n  " + "\n  ".join(problems[:5]))
        path = tmp_path / f"out-{seed}-{index}.html"
        path.write_text(output)
        again_paths.append(path)
    for document, output, again in zip(inputs, outputs, sanitize(again_paths, allow_remote)):
        if again != output:
            failures.append(f"not a fixed point: {document!r}\n1: {output!r}\n2: {again!r}")
    assert not failures, f"{len(failures)} of {count} documents:\n" + "\n\n".join(failures[:8])


@pytest.mark.parametrize("allow_remote", [False, True])
def test_generated_and_mutated_css_reads_the_same_in_tinycss2(tmp_path, allow_remote):
    run_round(tmp_path, 21, 2000, allow_remote)
    if os.environ.get("TERN_CSS_FUZZ_SEED"):
        run_round(tmp_path, int(os.environ["TERN_CSS_FUZZ_SEED"]), 2000, allow_remote)


def test_the_review_vector_keeps_no_overlay(tmp_path):
    path = tmp_path / "vector.html"
    path.write_text(f"<style>{VECTOR}</style><p>x</p>")
    output = sanitize([path], False)[0]
    collector = StyleCollector()
    collector.feed(output)
    problems = []
    for css in collector.sheets:
        check_rules(tinycss2.parse_stylesheet(css), False, problems, 0)
    assert not problems, output
    for word in ("position", "fixed", "z-index", "content", "2147483647"):
        assert word not in output, output
