#!/usr/bin/env python3
"""Issue 19's peer: sumy's LexRank and TextRank (classic graph-based extractive summarizers, PyPI `sumy`) on the
labelled evaluation set, scored with the same ROUGE-L as `scripts/assist_eval.py`, next to Tern's built-in summarizer
and the lead baseline in the same run, with the time each takes per thread (Tern's from `tern-bench assist --set`).

sumy's own sentence tokenizer needs NLTK data downloaded from the network, which this project never does; sentences
and words are cut here instead (the same rules for every language), and each summarizer reads the thread's own text:
every message with quotes, attribution lines and signatures removed by `assist_eval.own_text`. Two sentences, as
the lead baseline. Run: `.build/bench-venv/bin/python scripts/bench/assist_peer.py --tern-bench .build/release/tern-bench`.
"""
import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import assist_eval  # noqa: E402

from sumy.nlp.stemmers import null_stemmer  # noqa: E402
from sumy.parsers.plaintext import PlaintextParser  # noqa: E402
from sumy.summarizers.lex_rank import LexRankSummarizer  # noqa: E402
from sumy.summarizers.text_rank import TextRankSummarizer  # noqa: E402


class SimpleTokenizer:
    """What sumy asks of a tokenizer, without NLTK's downloaded models."""
    language = "any"

    def to_sentences(self, paragraph):
        return [s for s in re.split(r"(?<=[.!?])\s+", paragraph.strip()) if s]

    def to_words(self, sentence):
        return re.findall(r"\w+", sentence)


def thread_text(thread):
    return "\n\n".join(assist_eval.own_text(m["body"]) for m in thread["messages"])


def run_peer(summarizer, threads):
    summarizer.stem_word = null_stemmer
    outputs, seconds = {}, []
    for thread in threads:
        started = time.perf_counter()
        document = PlaintextParser.from_string(thread_text(thread), SimpleTokenizer()).document
        sentences = summarizer(document, 2)
        seconds.append(time.perf_counter() - started)
        outputs[thread["id"]] = {"summary": " ".join(str(s) for s in sentences), "suggestions": []}
    return outputs, seconds


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tern-bench", default=".build/release/tern-bench")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    threads = assist_eval.load_set(assist_eval.DEFAULT_SET)
    report = {"threads": len(threads)}
    report["lead"] = assist_eval.evaluate(threads, {t["id"]: {"summary": assist_eval.lead_baseline(t), "suggestions": []}
                                                     for t in threads})["rougeL"]["overall"]
    tern = {t["id"]: assist_eval.run_summarizer(f"{args.tern_bench} assist-eval-one", t, 30) for t in threads}
    report["tern"] = assist_eval.evaluate(threads, tern)["rougeL"]["overall"]
    timing = json.loads(subprocess.run([args.tern_bench, "assist", "--set", str(assist_eval.DEFAULT_SET), "--json"],
                                       capture_output=True, text=True, check=True).stdout)
    report["ternMillisecondsP50"], report["ternMillisecondsP99"] = timing["bothP50Milliseconds"], timing["bothP99Milliseconds"]
    for name, summarizer in [("lexrank", LexRankSummarizer()), ("textrank", TextRankSummarizer())]:
        outputs, seconds = run_peer(summarizer, threads)
        report[name] = assist_eval.evaluate(threads, outputs)["rougeL"]["overall"]
        report[f"{name}MillisecondsP50"] = percentile(seconds, 0.5) * 1000
        report[f"{name}MillisecondsP99"] = percentile(seconds, 0.99) * 1000
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{report['threads']} threads; ROUGE-L F1 overall, and time per thread (p50 / p99)")
    print(f"  lead baseline     {report['lead']:.3f}")
    print(f"  tern (built in)   {report['tern']:.3f}   {report['ternMillisecondsP50']:.3f} / {report['ternMillisecondsP99']:.3f} ms"
          " (summary and replies)")
    for name in ("lexrank", "textrank"):
        print(f"  sumy {name:<12} {report[name]:.3f}   {report[name + 'MillisecondsP50']:.3f} / {report[name + 'MillisecondsP99']:.3f} ms")


if __name__ == "__main__":
    main()
