"""Data with known licences (issue 37): `scripts/check-data-licences` passes on the repository and fails, naming
the file, when a generated list no longer is what its script makes of the vendored upstream input, when a vendored
upstream file is changed, or when a data file is bundled without a line in NOTICE."""
import shutil
import subprocess

import pytest

from support.tern import ROOT

# What the check reads: a copy of these is a repository of its own for the check.
FILES = ["LICENSE", "NOTICE", "Package.swift", "scripts/check-data-licences", "scripts/gen_tracker_list.py",
         "scripts/gen_html_entities.py", "Sources/HTMLSafety/Parser/HTMLEntities.swift",
         "Tests/HTMLSafetyTests/html5lib-tests/tokenizer/namedEntities.test"]
DIRECTORIES = ["ThirdParty", "Sources/HTMLSafety/Resources"]


def check(root):
    return subprocess.run([str(root / "scripts/check-data-licences")], capture_output=True, text=True, timeout=120)


@pytest.fixture
def copy(tmp_path):
    for name in FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tmp_path / name)
    for name in DIRECTORIES:
        shutil.copytree(ROOT / name, tmp_path / name)
    return tmp_path


def test_the_repository_passes():
    result = check(ROOT)
    assert result.returncode == 0, result.stderr


def test_the_copy_passes_as_the_repository_does(copy):
    result = check(copy)
    assert result.returncode == 0, result.stderr


def test_a_hand_edit_of_the_generated_tracker_list_fails(copy):
    with open(copy / "Sources/HTMLSafety/Resources/tracker-hosts.txt", "a") as file:
        file.write("added-by-hand.example\n")
    result = check(copy)
    assert result.returncode == 1 and "tracker-hosts.txt differs" in result.stderr, result.stderr


def test_a_changed_upstream_file_fails(copy):
    with open(copy / "ThirdParty/nextdns-cname-cloaking-blocklist/domains", "a") as file:
        file.write("added-by-hand.example\n")
    result = check(copy)
    assert result.returncode == 1 and "is not upstream blob" in result.stderr, result.stderr


def test_a_regenerated_list_from_changed_rules_is_accepted(copy):
    """The check compares with what the script makes: a rule added to the vendored input and the list written
    again by the script pass; the line appears in the list."""
    with open(copy / "ThirdParty/MailTrackerBlocker/tracker-rules.tsv", "a") as file:
        file.write("Example\tpixels.example.org/open/\n")
    subprocess.run([str(copy / "scripts/gen_tracker_list.py")], check=True, capture_output=True, timeout=120)
    assert "pixels.example.org/open/\n" in (copy / "Sources/HTMLSafety/Resources/tracker-hosts.txt").read_text()
    result = check(copy)
    assert result.returncode == 0, result.stderr


def test_a_bundled_file_not_in_notice_fails(copy):
    (copy / "Sources/HTMLSafety/Resources/unlisted-words.txt").write_text("word\n")
    result = check(copy)
    assert result.returncode == 1 and "unlisted-words.txt is not named in NOTICE" in result.stderr, result.stderr


def test_an_edited_entity_table_fails(copy):
    table = copy / "Sources/HTMLSafety/Parser/HTMLEntities.swift"
    table.write_text(table.read_text().replace("amp 26\n", "amp 27\n", 1))
    result = check(copy)
    assert result.returncode == 1 and "gen_html_entities.py --check failed" in result.stderr, result.stderr


def test_the_licence_is_apache_2_and_notice_names_each_upstream_revision():
    assert (ROOT / "LICENSE").read_text().startswith("\n                                 Apache License\n")
    notice = (ROOT / "NOTICE").read_text()
    for directory in (ROOT / "ThirdParty").iterdir():
        commit = next(line.split(":", 1)[1].strip() for line in (directory / "UPSTREAM").read_text().splitlines()
                      if line.startswith("commit:"))
        assert commit in notice, directory.name
        assert commit in (ROOT / "Sources/HTMLSafety/Resources/tracker-hosts.txt").read_text(), directory.name
