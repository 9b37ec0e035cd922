#!/usr/bin/env python3
"""What a `tern` binary's sanitizer writes for every input of a set, one JSON line per input, with
and without `--allow-remote`: the check that a change to the parser or the sanitizer for speed
(issue 38) leaves every output byte for byte as it was. Run it with the binary before the change
and the one after into two folders, then `diff -r` them.

The inputs: the benchmark corpus (`scripts/make_html_corpus.py`), every html5lib tree-construction
input, the HTML fuzzer's seeds and the real-world samples of the tests."""
import argparse, pathlib, subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]

parser = argparse.ArgumentParser()
parser.add_argument("tern", help="the tern binary")
parser.add_argument("output", help="folder for the outputs (made)")
parser.add_argument("--corpus", default="/tmp/html-corpus")
args = parser.parse_args()


def html5lib_inputs():
    """Each `#data` section of the tree-construction files (fragment cases included: their
    markup is a document here too)."""
    for path in sorted((ROOT / "Tests/HTMLSafetyTests/html5lib-tests/tree-construction").glob("*.dat")):
        lines = path.read_bytes().split(b"\n")
        index = 0
        while index < len(lines):
            if lines[index] == b"#data":
                data = []
                index += 1
                while index < len(lines) and not lines[index].startswith(b"#errors"):
                    data.append(lines[index])
                    index += 1
                yield b"\n".join(data)
            index += 1


inputs_folder = pathlib.Path(args.output) / "inputs"
inputs_folder.mkdir(parents=True, exist_ok=True)
files = []
for path in sorted(pathlib.Path(args.corpus).glob("*.html")):
    files.append(path)
for path in sorted((ROOT / "Fuzz/HTMLFuzzer/seeds").iterdir()):
    files.append(path)
for path in sorted((ROOT / "Tests/HTMLSafetyTests/Samples").glob("*.html")):
    files.append(path)
for number, data in enumerate(html5lib_inputs()):
    path = inputs_folder / f"html5lib-{number:05}.html"
    path.write_bytes(data)
    files.append(path)

for mode, flags in (("blocked", []), ("remote", ["--allow-remote"])):
    with open(pathlib.Path(args.output) / f"{mode}.jsonl", "wb") as out:
        for start in range(0, len(files), 200):
            chunk = files[start:start + 200]
            result = subprocess.run([args.tern, "sanitize", "--json", *flags, *map(str, chunk)], capture_output=True, check=True)
            lines = result.stdout.split(b"\n")[:-1]
            assert len(lines) == len(chunk), (len(lines), len(chunk))
            for path, line in zip(chunk, lines):
                out.write(path.name.encode() + b"\t" + line + b"\n")
print(f"{len(files)} inputs, two modes, in {args.output}")
