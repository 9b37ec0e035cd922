#!/usr/bin/env python3
"""Score Tern's local thread summaries and smart replies against the labelled set (issue 19).

The set lives in SystemTests/assist-eval/threads/*.json (format in SystemTests/assist-eval/README.md).
For each thread the command given with --summarizer receives the thread JSON on stdin and prints
{"summary": "...", "suggestions": [{"text": "...", "intent": "question"}]}.

Printed figures:
  * ROUGE-L F1 (longest common subsequence over lowercased word tokens), per thread, averaged per
    language and overall, for the summarizer and for a lead baseline computed here (the first two
    sentences of the last message's own text, with quoted history and signature removed);
  * intent precision and recall over threads with expectsReply true and a supported language;
  * the rate of threads that must get no suggestion (expectsReply false, or an unsupported
    language per FR-COMP-03) that got at least one.
Standard library only (Python 3.11).
"""
from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

INTENTS = ("question", "scheduling", "actionRequest", "thanks", "announcement")
CATEGORIES = ("business", "personal", "automated", "newsletter", "notification")
SUPPORTED_LANGUAGES = ("en", "de", "fr", "es")
DEFAULT_SET = Path(__file__).resolve().parent.parent / "SystemTests" / "assist-eval" / "threads"

_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# A line that opens quoted history ("On … wrote:", "Am … schrieb …:", "Le … a écrit :", "El … escribió:").
_ATTRIBUTION = re.compile(
    r"^(on .+ wrote:|am .+ schrieb .+:|le .+ a écrit ?:|el .+ escribió:|-----\s*original message|"
    r"-----\s*ursprüngliche nachricht|dnia .+ napisał.*:|il .+ ha scritto:)\s*$",
    re.IGNORECASE,
)
_SIGNATURE_DELIMITER = re.compile(r"^--\s*$")
# Greeting lines carry no content; the lead baseline skips them (simple rules, as the issue asks).
_GREETING = re.compile(
    r"^(hi|hello|hey|dear|hallo|liebe[rs]?|sehr geehrte[rs]?|moin|bonjour|salut|chère?s?|hola|"
    r"estimad[oa]s?|querid[oa]s?|buenos días|cześć|ciao|buongiorno)\b[^.!?]{0,40}[,!]?\s*$",
    re.IGNORECASE,
)


def tokens(text: str) -> list[str]:
    """Lowercased word tokens; punctuation is not a token."""
    return _WORD.findall(text.lower())


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence, O(len(a)·len(b)) time, O(len(b)) memory."""
    if not a or not b:
        return 0
    previous = [0] * (len(b) + 1)
    for token in a:
        current = [0]
        for j, other in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if token == other else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def rouge_l_f1(candidate: str, reference: str) -> float:
    """ROUGE-L F1 (Lin 2004, β = 1) on lowercased word tokens; 0 when either side is empty."""
    cand, ref = tokens(candidate), tokens(reference)
    lcs = lcs_length(cand, ref)
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(cand), lcs / len(ref)
    return 2 * precision * recall / (precision + recall)


def own_text(body: str) -> str:
    """The message's own text: quoted lines, quoted history and the signature removed."""
    kept: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        if _SIGNATURE_DELIMITER.match(line) or _ATTRIBUTION.match(stripped):
            break
        if stripped.startswith(">"):
            continue
        kept.append(line)
    return "\n".join(kept).strip()


def lead_baseline(thread: dict) -> str:
    """The first two sentences of the last message's own text, greeting lines skipped."""
    text = own_text(thread["messages"][-1]["body"])
    lines = [line for line in text.splitlines() if line.strip() and not _GREETING.match(line.strip())]
    sentences = [s for s in _SENTENCE_END.split(" ".join(l.strip() for l in lines)) if s]
    return " ".join(sentences[:2])


def must_stay_silent(thread: dict) -> bool:
    """No suggestion is right when no reply is expected or the language is not supported (FR-COMP-03)."""
    return not thread["expectsReply"] or not thread.get("languageSupported", True)


def intent_counts(suggested: set[str], expected: set[str]) -> tuple[int, int, int]:
    """(true positives, suggested count, expected count) for one thread."""
    return len(suggested & expected), len(suggested), len(expected)


def precision_recall(counts: list[tuple[int, int, int]]) -> tuple[float, float]:
    """Micro-averaged precision and recall; a ratio with an empty denominator is 0."""
    hits = sum(c[0] for c in counts)
    suggested = sum(c[1] for c in counts)
    expected = sum(c[2] for c in counts)
    return (hits / suggested if suggested else 0.0, hits / expected if expected else 0.0)


def load_set(directory: Path) -> list[dict]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(directory.glob("*.json"))]


def run_summarizer(command: str, thread: dict, timeout: float) -> dict:
    completed = subprocess.run(
        shlex.split(command), input=json.dumps(thread, ensure_ascii=False), capture_output=True,
        text=True, timeout=timeout, check=True,
    )
    output = json.loads(completed.stdout)
    if not isinstance(output.get("summary", ""), str) or not isinstance(output.get("suggestions", []), list):
        raise ValueError(f"{thread['id']}: malformed summarizer output")
    return output


def average(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def rouge_by_language(threads: list[dict], summaries: dict[str, str]) -> dict[str, float]:
    """Mean ROUGE-L F1 per language plus "overall"; per-thread scores are averaged, not pooled."""
    scores: dict[str, list[float]] = {}
    for thread in threads:
        score = rouge_l_f1(summaries[thread["id"]], thread["referenceSummary"])
        scores.setdefault(thread["language"], []).append(score)
    figures = {language: average(values) for language, values in sorted(scores.items())}
    figures["overall"] = average([score for values in scores.values() for score in values])
    return figures


def evaluate(threads: list[dict], outputs: dict[str, dict]) -> dict:
    """All figures for one system's outputs keyed by thread id."""
    summaries = {tid: out.get("summary", "") for tid, out in outputs.items()}
    counts = []
    silent_total = silent_violations = 0
    for thread in threads:
        suggestions = outputs[thread["id"]].get("suggestions", [])
        if must_stay_silent(thread):
            silent_total += 1
            silent_violations += bool(suggestions)
        else:
            suggested = {s.get("intent") for s in suggestions}
            counts.append(intent_counts(suggested, set(thread["expectedIntents"])))
    precision, recall = precision_recall(counts)
    return {
        "rougeL": rouge_by_language(threads, summaries),
        "intentPrecision": precision,
        "intentRecall": recall,
        "replyThreads": len(counts),
        "silentThreads": silent_total,
        "unwantedSuggestionRate": silent_violations / silent_total if silent_total else 0.0,
    }


def print_figures(title: str, figures: dict, with_intents: bool) -> None:
    print(title)
    for language, score in figures["rougeL"].items():
        print(f"  ROUGE-L F1 {language:>7}: {score:.3f}")
    if with_intents:
        print(f"  intent precision: {figures['intentPrecision']:.3f}  recall: {figures['intentRecall']:.3f}"
              f"  (over {figures['replyThreads']} threads expecting a reply)")
        print(f"  threads needing no suggestion that got one: {figures['unwantedSuggestionRate']:.3f}"
              f"  (of {figures['silentThreads']})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=DEFAULT_SET, help="folder of thread JSON files")
    parser.add_argument("--summarizer", help="command reading one thread on stdin, printing JSON")
    parser.add_argument("--baseline-only", action="store_true", help="print only the lead baseline")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per thread")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if not args.baseline_only and not args.summarizer:
        parser.error("give --summarizer CMD or --baseline-only")

    threads = load_set(args.set)
    baseline = evaluate(threads, {t["id"]: {"summary": lead_baseline(t), "suggestions": []} for t in threads})
    report = {"threads": len(threads), "baseline": baseline}
    if not args.baseline_only:
        report["summarizer"] = evaluate(
            threads, {t["id"]: run_summarizer(args.summarizer, t, args.timeout) for t in threads})
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{len(threads)} threads")
    print_figures("lead baseline (first 2 sentences of the last message):", baseline, with_intents=False)
    if "summarizer" in report:
        print_figures(f"summarizer ({args.summarizer}):", report["summarizer"], with_intents=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
