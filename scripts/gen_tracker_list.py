#!/usr/bin/env python3
"""Writes Sources/HTMLSafety/Resources/tracker-domains-easyprivacy.txt: the tracking hosts of
EasyPrivacy (https://easylist.to/, dual licensed GPLv3+ / CC BY-SA 3.0+) that make sense for the
images of an email, as shipped in Debian's `webext-ublock-origin-chromium` package (its
assets/thirdparties/easylist/easyprivacy.txt). Tern's hand-curated list (tracker-domains.json) is
matched before it. See docs/decisions.md, "The bundled tracker list".

    scripts/gen_tracker_list.py                 # apt-get download the package (after an
                                                # apt-get update), read it with dpkg-deb, write
    scripts/gen_tracker_list.py path/to/the.deb # or a .deb already downloaded

What is kept (an email image is a third-party image request with no page around it):
- blocking rules `||host^` (also `||host`, `||host^|`): the host and its subdomains;
- rules with a path, `||host/path` (and in EasyPrivacy's email-tracker section also `.domain/path`,
  `/host/path`, `://host/path` and a bare `host$image`): the host with that path prefix, when the
  path has no wildcard but a trailing one (patterns with inner wildcards are left out);
- only with options an image request from a mail meets: none, `third-party`, `image`, `important`,
  `all`, `match-case`, or a negated type other than `~image`. A rule limited to other request
  types (`$script`, `$xmlhttprequest`, `$ping`…), to first-party requests, or to pages of certain
  sites (`$domain=`) never applies to a mail's image and is left out;
- exception rules (`@@`) of the same kinds for a whole host remove what they cover (one for a
  subdomain of a listed domain is kept as an `@host` line, which the matcher honours); exceptions
  for a path are not carried (they keep some site's page working; a mail has no page).

Output: a header of `#` lines (source, licence, version, date, counts), then one entry per line,
`host` or `host/path-prefix` (paths lowercased), or `@host` for an exception, sorted by the
host's bytes read from the end, then by path, an exception first (the order TrackerHostList's
binary search uses).
"""
import datetime, gzip, io, pathlib, re, subprocess, sys, tarfile, tempfile

root = pathlib.Path(__file__).resolve().parents[1]
output = root / "Sources/HTMLSafety/Resources/tracker-domains-easyprivacy.txt"
package = "webext-ublock-origin-chromium"
member = "usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easyprivacy.txt"
changelog = f"usr/share/doc/{package}/changelog.Debian.gz"

HOST = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)+$")
TYPES = {"script", "stylesheet", "css", "xmlhttprequest", "xhr", "subdocument", "frame", "object", "ping", "beacon",
         "media", "font", "websocket", "other", "popup", "document", "doc", "webrtc", "image"}
NEUTRAL = {"third-party", "3p", "important", "all", "match-case"}


def deb_files(deb):
    """The package's data files we need, read with dpkg-deb (no install, no root needed)."""
    data = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        def read(name):
            return tar.extractfile(tar.getmember("./" + name)).read()
        return read(member).decode("utf-8"), gzip.decompress(read(changelog)).decode("utf-8")


def applies_to_mail_images(options):
    """Whether a rule with these options blocks (or excepts) an image loaded by a mail."""
    types = []
    for option in options:
        if option in NEUTRAL:
            continue
        if option.startswith("~") and option[1:] in TYPES:
            if option == "~image":
                return False
            continue
        if option in TYPES:
            types.append(option)
            continue
        return False  # domain=, ~third-party, first-party, redirect=, csp=, removeparam, header=…
    return not types or "image" in types


def path_prefix(path):
    """A literal path prefix, or None when the rule's path needs a pattern matcher."""
    path = path.rstrip("*")
    if path.endswith("^") or path.endswith("|"):
        path = path[:-1]
    if not path.startswith("/") or any(c in path for c in "*^|"):
        return None
    return path.lower()


def parse(rule, email_section):
    """(host, path prefix or "") for a rule Tern can use, else None."""
    body, options = rule, []
    if "$" in rule:
        body, _, tail = rule.rpartition("$")
        options = [o.strip().lower() for o in tail.split(",") if o.strip()]
    if not applies_to_mail_images(options):
        return None
    body = body.lower()
    for start in ("||", "://", "/", "."):
        if body.startswith(start) and (start == "||" or email_section):
            rest = body[len(start):]
            break
    else:
        # `host$image` in the email section: a host written bare.
        start, rest = "", body if email_section and "image" in options else None
    if rest is None:
        return None
    match = re.match(r"^([a-z0-9_.-]+)(.*)$", rest)
    if not match or not HOST.match(match.group(1)) or not re.search(r"\.[a-z][a-z0-9-]*$", match.group(1)):
        return None
    host, tail = match.group(1), match.group(2)
    if tail in ("", "^", "^|", "|"):
        # `/host` or `.host` without a path is a substring anywhere in the URL: too loose.
        return (host, "") if start in ("||", "") or tail else None
    if tail.startswith("/"):
        prefix = path_prefix(tail)
        return (host, "" if prefix == "/" else prefix) if prefix else None
    return None


def reversed_key(entry):
    host, path, exception = entry
    return (host[::-1].encode(), path.encode(), not exception)


def covers(domain, host):
    return host == domain or host.endswith("." + domain)


def main():
    with tempfile.TemporaryDirectory() as work:
        if len(sys.argv) > 1:
            deb = pathlib.Path(sys.argv[1]).resolve()
        else:
            subprocess.run(["apt-get", "download", package], check=True, cwd=work)
            deb = next(pathlib.Path(work).glob(package + "_*.deb"))
        version = subprocess.run(["dpkg-deb", "-f", str(deb), "Version"], check=True, capture_output=True, text=True).stdout.strip()
        text, log = deb_files(deb)
    date = re.search(r"^ -- .*?  (.*)$", log, re.M).group(1)
    date = datetime.datetime.strptime(date, "%a, %d %b %Y %H:%M:%S %z").date().isoformat()

    blocked, exceptions = set(), set()
    rules = 0
    email_section = False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("! *** "):
            email_section = "emailtrackers" in line
        if not line or line[0] in "![" or "#" in line.split("$")[0]:
            continue  # comments, the header, cosmetic filters
        rules += 1
        exception = line.startswith("@@")
        parsed = parse(line[2:] if exception else line, email_section)
        if parsed:
            (exceptions if exception else blocked).add(parsed)

    # An exception for a whole host removes what it covers; below a listed domain it is kept so
    # that the matcher lets that subdomain through. Exceptions for a path are not carried: they
    # let part of a tracking host through so that some site's page works, and a mail has no page.
    kept_exceptions = set()
    rules_blocking = len(blocked)
    host_exceptions = {host for host, path in exceptions if not path}
    for host in host_exceptions:
        blocked = {(h, p) for h, p in blocked if not covers(host, h)}
        if any(covers(d, host) for d, p in blocked if not p):
            kept_exceptions.add(host)
    # An entry under a listed domain adds nothing (a host's own path entries neither).
    domains = {h for h, p in blocked if not p}
    def listed_above(host, path):
        labels = host.split(".")
        return any(".".join(labels[i:]) in domains for i in range(0 if path else 1, len(labels)))
    removed = rules_blocking - len(blocked)
    entries = sorted([(h, p, False) for h, p in blocked if not listed_above(h, p)]
                     + [(h, "", True) for h in kept_exceptions], key=reversed_key)
    hosts = sum(1 for _, p, e in entries if not p and not e)
    paths = sum(1 for _, p, _ in entries if p)

    header = f"""# Generated by scripts/gen_tracker_list.py; do not edit (edit tracker-domains.json, which is matched first).
# Source: EasyPrivacy, https://easylist.to/ (easyprivacy.txt as shipped in Debian's {package} {version},
#   assets/thirdparties/easylist/easyprivacy.txt; package date {date}; generated {datetime.date.today().isoformat()}).
# Licence: EasyPrivacy is dual licensed GPLv3 or later / CC BY-SA 3.0 or later (https://easylist.to/pages/licence.html).
#   This file is an adaptation of it, under CC BY-SA 3.0 (share-alike): credit "The EasyList authors", keep
#   this notice and the licence link, and license changes to this file the same way.
# Kept: {hosts} hosts (the host and its subdomains), {paths} host/path-prefix entries, {len(kept_exceptions)} exceptions (@host),
#   from {rules} rules; only rules that apply to an image in an email (docs/decisions.md, "The bundled tracker list").
# Order: by host read from its last byte to its first, then path (TrackerBlocklist searches it as it is).
"""
    body = "".join(("@" if e else "") + h + p + "\n" for h, p, e in entries)
    output.write_text(header + body)
    print(f"{hosts} hosts, {paths} path entries, {len(kept_exceptions)} exceptions from {rules} rules ({version}, {date});"
          f" {len(host_exceptions)} host exceptions apply to mail images and removed {removed} entries;"
          f" {len(blocked) - hosts - paths} entries under a listed domain left out")


main()
