"""The `tern` binary under test and the repository's paths."""
import json
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[3]
TERN = ROOT / ".build" / "debug" / "tern"
MAILSERVERS = ROOT / "scripts" / "mailservers"


def tern(home, *args, check=False, env=None, timeout=60):
    """`tern ARGS` with TERN_HOME=`home` (and `env` added), its output as text."""
    environment = dict(os.environ, TERN_HOME=str(home), **(env or {}))
    return subprocess.run([str(TERN), *args], capture_output=True, text=True, env=environment, timeout=timeout, check=check)


def json_of(home, *args):
    """`tern ARGS --json`, which must succeed, parsed."""
    result = tern(home, *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def sanitized(paths, allow_remote=False, timeout=300):
    """`tern sanitize --json` of the HTML files `paths`: one result (`html`, counts) per file, in order."""
    command = [str(TERN), "sanitize", "--json"] + (["--allow-remote"] if allow_remote else []) + [str(path) for path in paths]
    out = subprocess.run(command, check=True, capture_output=True, text=True, timeout=timeout).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def sync(home, user, *extra, timeout=180):
    """`tern sync USER --json EXTRA`, which must succeed: its folders by path, and the whole report."""
    result = tern(home, "sync", user, "--json", *extra, timeout=timeout)
    assert result.returncode == 0, result.stderr
    [report] = json.loads(result.stdout)
    return {folder["path"]: folder for folder in report["folders"]}, report
