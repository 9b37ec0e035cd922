#!/usr/bin/env python3
"""Writes Sources/HTMLSafety/Resources/tracker-hosts.txt, the generated part of Tern's tracker list,
from the permissively licensed upstream data vendored under ThirdParty/ (issue 37; docs/decisions.md,
"Data with known licences"). Tern's own hand-curated list (tracker-domains.json) is matched first.

    scripts/gen_tracker_list.py            # write the shipped file from ThirdParty/
    scripts/gen_tracker_list.py --check    # exit 1 unless the shipped file is what ThirdParty/ gives
    scripts/gen_tracker_list.py vendor --mailtrackerblocker GIT_DIR --nextdns GIT_DIR
                                           # refresh ThirdParty/ from upstream git repositories (as
                                           # the search tool's `fetch` brings them), then run the first form

Upstream inputs (each ThirdParty/<name>/ has the upstream LICENSE and an UPSTREAM file naming the
repository, commit, path and git blob id):
- MailTrackerBlocker (https://github.com/apparition47/MailTrackerBlocker, BSD-3-Clause): the
  email-tracker rules of `+[MTBBlockedMessage getTrackerDict]` in Source/MTBBlockedMessage.m, kept as
  `tracker-rules.tsv` (vendor, tab, rule: the pattern as the Objective-C literal means it; rules
  commented out upstream are left out). Each rule is an NSRegularExpression matched, without regard
  to case, anywhere in an <img> tag.
- NextDNS CNAME Cloaking Blocklist (https://github.com/nextdns/cname-cloaking-blocklist, MIT):
  `domains`, verbatim: hosts of tracking services that first-party names alias.

What is kept from MailTrackerBlocker's rules (TrackerHostList matches a host and its subdomains,
optionally with a literal path prefix): a rule that starts with a host (a leading `.` dropped) and
is, up to its first regular-expression operator, literal: `host` or `host/path`. An unescaped `.`
is read as the literal dot the rules mean by it; `\\.`, `\\?`, `\\/`, `\\-`, `\\&`, `\\=` are literal.
A path cut at an operator keeps its literal prefix when that is more than `/` (the entry then covers
a little more than the rule did); a rule whose host has an operator, that has no host (`/open.gif`,
matched in any URL: a pattern matcher is a later step), whose host ends in a fragment (`email.mg.`,
`yamm-track.appspot`), or whose path is cut down to `/`, is left out and counted.

Output: a header of `#` lines (sources with their revisions and licences, counts), then one entry
per line, `host` or `host/path-prefix` (lowercase), sorted by the host's bytes read from the end,
then by path (the order TrackerHostList's binary search uses). Nothing in it depends on the date,
so `--check` can compare it byte for byte.
"""
import hashlib, pathlib, re, subprocess, sys

root = pathlib.Path(__file__).resolve().parents[1]
output = root / "Sources/HTMLSafety/Resources/tracker-hosts.txt"
third_party = root / "ThirdParty"
mtb_dir = third_party / "MailTrackerBlocker"
nextdns_dir = third_party / "nextdns-cname-cloaking-blocklist"

MTB_REPO, MTB_PATH = "https://github.com/apparition47/MailTrackerBlocker", "Source/MTBBlockedMessage.m"
NEXTDNS_REPO, NEXTDNS_PATH = "https://github.com/nextdns/cname-cloaking-blocklist", "domains"

HOST = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)+$")
# The rules write a name's beginning as often as a whole host (`t.sidekickopen` for
# `t.sidekickopen01.com`, `yamm-track.appspot`): a host is taken as whole when its last label is a
# country code or one of these top-level domains, the ones the rules' whole hosts end in.
GENERIC_TLDS = {"com", "net", "org", "edu", "gov", "io", "email", "cloud", "live", "link", "trade", "watch", "info", "biz", "app"}
LITERAL_ESCAPES = set(".?/-&=_~%:;,@!#")
OPERATORS = set("[](){}*+?|^$\\")


def git_blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def read_upstream(directory):
    """The UPSTREAM file's `key: value` lines."""
    fields = {}
    for line in (directory / "UPSTREAM").read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    return fields


# MARK: - MailTrackerBlocker's rules

def objc_tracker_rules(source):
    """(vendor, rule) pairs of `+getTrackerDict`, in file order, from the Objective-C source."""
    start = source.index("getTrackerDict")
    body = source[start:source.index("};", start)]
    body = "\n".join(line.split("//", 1)[0] for line in body.splitlines())  # no `//` occurs inside a rule
    pairs, vendor = [], None
    for match in re.finditer(r'@"((?:[^"\\]|\\.)*)"(\s*:)?', body):
        text = re.sub(r"\\(.)", r"\1", match.group(1))  # the literal's own escapes: \\ → \, \" → "
        if match.group(2):
            vendor = text
        elif vendor is not None:
            pairs.append((vendor, text))
    return pairs


def read_rules():
    rules = []
    for line in (mtb_dir / "tracker-rules.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            vendor, rule = line.split("\t")
            rules.append((vendor, rule))
    return rules


def literal_prefix(rule):
    """The rule's literal text up to its first operator, and whether it stopped at one."""
    out, i = [], 0  # (character, whether it is an unescaped `.`, which matches any character)
    while i < len(rule):
        c = rule[i]
        if c == "\\":
            if i + 1 < len(rule) and rule[i + 1] in LITERAL_ESCAPES:
                out.append((rule[i + 1], False))
                i += 2
                continue
            break
        if c in OPERATORS:
            # `x?`, `x*` make `x` optional; `.+`, `.{n}` stand for characters not known.
            if out and (c in "?*" or (c in "+{" and out[-1][1])):
                out.pop()
            break
        out.append((c, c == "."))
        i += 1
    return "".join(c for c, _ in out), i < len(rule)


def entry_for_rule(rule):
    """(host, path prefix or "") for a rule, or (None, reason)."""
    text, cut = literal_prefix(rule)
    text = text.lower()
    if text.startswith("."):
        text = text[1:]
    host, slash, path = text.partition("/")
    if not host:
        return None, "no host"
    if cut and not slash:
        return None, "operator in host"
    if not HOST.match(host) or not re.search(r"\.[a-z][a-z0-9-]*$", host):
        return None, "host fragment"
    last_label = host.rsplit(".", 1)[1]
    if len(last_label) != 2 and last_label not in GENERIC_TLDS:
        return None, "host fragment"
    path = (slash + path) if slash else ""
    if cut and len(path) <= 1:
        return None, "path cut to /"
    return (host, "" if path == "/" else path), None


# MARK: - The shipped file

def build():
    mtb, nextdns = read_upstream(mtb_dir), read_upstream(nextdns_dir)
    blocked, left_out = set(), {}
    rules = read_rules()
    for _, rule in rules:
        entry, reason = entry_for_rule(rule)
        if entry:
            blocked.add(entry)
        else:
            left_out[reason] = left_out.get(reason, 0) + 1
    from_rules = len(blocked)
    domains_text = (nextdns_dir / "domains").read_text()
    nextdns_hosts = [line.strip().lower() for line in domains_text.splitlines() if line.strip() and not line.startswith("#")]
    for host in nextdns_hosts:
        blocked.add((host, ""))

    # An entry under a listed host adds nothing (a host's own path entries neither).
    domains = {h for h, p in blocked if not p}

    def listed_above(host, path):
        labels = host.split(".")
        return any(".".join(labels[i:]) in domains for i in range(0 if path else 1, len(labels)))

    entries = sorted((h, p) for h, p in blocked if not listed_above(h, p))
    entries.sort(key=lambda e: (e[0][::-1].encode(), e[1].encode()))
    hosts = sum(1 for _, p in entries if not p)
    paths = len(entries) - hosts
    reasons = ", ".join(f"{count} {reason}" for reason, count in sorted(left_out.items()))
    header = f"""# Generated by scripts/gen_tracker_list.py from ThirdParty/; do not edit (edit tracker-domains.json, Tern's own list, matched first).
# Sources:
#   MailTrackerBlocker, {MTB_REPO}, commit {mtb['commit']}, {MTB_PATH}
#     (+[MTBBlockedMessage getTrackerDict]); BSD-3-Clause, Copyright (c) 2020, Aaron Lee (ThirdParty/MailTrackerBlocker/LICENSE).
#   NextDNS CNAME Cloaking Blocklist, {NEXTDNS_REPO}, commit {nextdns['commit']}, {NEXTDNS_PATH};
#     MIT, Copyright (c) 2022 NextDNS (ThirdParty/nextdns-cname-cloaking-blocklist/LICENSE).
# Kept: {hosts} hosts (the host and its subdomains) and {paths} host/path-prefix entries, from {len(rules)} MailTrackerBlocker rules
#   ({from_rules} usable; left out: {reasons}) and {len(nextdns_hosts)} NextDNS hosts; entries under a listed host dropped.
# Order: by host read from its last byte to its first, then path (TrackerBlocklist searches it as it is).
"""
    return header + "".join(h + p + "\n" for h, p in entries), hosts, paths


def verify_vendored():
    """The verbatim vendored files are the upstream blobs UPSTREAM names."""
    problems = []
    nextdns = read_upstream(nextdns_dir)
    if git_blob_id((nextdns_dir / "domains").read_bytes()) != nextdns["blob"]:
        problems.append(f"{(nextdns_dir / 'domains').relative_to(root)} is not upstream blob {nextdns['blob']}")
    return problems


# MARK: - Refreshing ThirdParty/ from upstream

def git_show(git_dir, revision, path):
    return subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{revision}:{path}"], check=True, capture_output=True).stdout


def git_rev(git_dir, revision="HEAD"):
    return subprocess.run(["git", "--git-dir", str(git_dir), "rev-parse", revision], check=True, capture_output=True, text=True).stdout.strip()


def upstream_text(name, repo, commit, path, blob, note):
    return f"""# Where the files beside this one come from ({name}); written by scripts/gen_tracker_list.py vendor.
repository: {repo}
commit: {commit}
path: {path}
blob: {blob}
note: {note}
"""


def vendor(mtb_git, nextdns_git):
    commit = git_rev(mtb_git)
    source = git_show(mtb_git, commit, MTB_PATH)
    mtb_dir.mkdir(parents=True, exist_ok=True)
    (mtb_dir / "LICENSE").write_bytes(git_show(mtb_git, commit, "LICENSE"))
    rules = objc_tracker_rules(source.decode("utf-8"))
    (mtb_dir / "tracker-rules.tsv").write_text(
        "# +[MTBBlockedMessage getTrackerDict] of MailTrackerBlocker's Source/MTBBlockedMessage.m (UPSTREAM beside this file):\n"
        "# vendor, a tab, one rule (an NSRegularExpression, matched without regard to case anywhere in an <img> tag).\n"
        + "".join(f"{v}\t{r}\n" for v, r in rules))
    (mtb_dir / "UPSTREAM").write_text(upstream_text(
        "MailTrackerBlocker", MTB_REPO, commit, MTB_PATH, git_blob_id(source),
        "tracker-rules.tsv holds that file's getTrackerDict rules as data (no code); LICENSE is the repository's."))

    commit = git_rev(nextdns_git)
    domains = git_show(nextdns_git, commit, NEXTDNS_PATH)
    nextdns_dir.mkdir(parents=True, exist_ok=True)
    (nextdns_dir / "LICENSE").write_bytes(git_show(nextdns_git, commit, "LICENSE"))
    (nextdns_dir / "domains").write_bytes(domains)
    (nextdns_dir / "UPSTREAM").write_text(upstream_text(
        "NextDNS CNAME Cloaking Blocklist", NEXTDNS_REPO, commit, NEXTDNS_PATH, git_blob_id(domains),
        "domains is that file, verbatim; LICENSE is the repository's."))
    print(f"{len(rules)} MailTrackerBlocker rules; NextDNS domains {len(domains)} bytes")


def main(arguments):
    if arguments[:1] == ["vendor"]:
        options = dict(zip(arguments[1::2], arguments[2::2]))
        vendor(pathlib.Path(options["--mailtrackerblocker"]), pathlib.Path(options["--nextdns"]))
        return 0
    text, hosts, paths = build()
    if arguments == ["--check"]:
        problems = verify_vendored()
        if not output.exists() or output.read_text() != text:
            problems.append(f"{output.relative_to(root)} differs from what scripts/gen_tracker_list.py makes of ThirdParty/")
        for problem in problems:
            print("gen_tracker_list --check:", problem, file=sys.stderr)
        return 1 if problems else 0
    if arguments:
        print(__doc__, file=sys.stderr)
        return 2
    output.write_text(text)
    print(f"{output.relative_to(root)}: {hosts} hosts, {paths} host/path entries")
    return 0


sys.exit(main(sys.argv[1:]))
