"""The assist evaluation scorer's metrics and the labelled set's shape and mix (issue 19)."""
from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter

import pytest

from support.tern import ROOT

SET_DIR = ROOT / "SystemTests" / "assist-eval" / "threads"
_spec = importlib.util.spec_from_file_location("assist_eval", ROOT / "scripts" / "assist_eval.py")
assist_eval = importlib.util.module_from_spec(_spec)
sys.modules["assist_eval"] = assist_eval
_spec.loader.exec_module(assist_eval)


def test_lcs_length_of_known_sequences():
    assert assist_eval.lcs_length("a b c d".split(), "a c d".split()) == 3
    assert assist_eval.lcs_length("x y".split(), "a b".split()) == 0
    assert assist_eval.lcs_length([], ["a"]) == 0


def test_rouge_l_identical_is_one_and_disjoint_is_zero():
    assert assist_eval.rouge_l_f1("The Cat sat.", "the cat sat") == pytest.approx(1.0)
    assert assist_eval.rouge_l_f1("dogs bark", "the cat sat") == 0.0
    assert assist_eval.rouge_l_f1("", "the cat sat") == 0.0


def test_rouge_l_partial_match_is_the_harmonic_mean():
    # LCS("police killed the gunman", "police kill the gunman") = 3: precision 3/4, recall 3/4.
    assert assist_eval.rouge_l_f1("police killed the gunman", "police kill the gunman") == pytest.approx(0.75)
    # Candidate 2 tokens, reference 4, LCS 2: P = 1, R = 0.5, F1 = 2/3.
    assert assist_eval.rouge_l_f1("cat sat", "the cat sat down") == pytest.approx(2 / 3)


def test_tokens_keep_accented_words():
    assert assist_eval.tokens("Réunion à 14h, d'accord?") == ["réunion", "à", "14h", "d", "accord"]


def test_own_text_drops_quotes_history_and_signature():
    body = "Yes, Friday works.\n\nTom\n-- \nTom Reyes\n\nOn Mon, Tom wrote:\n> old text"
    assert assist_eval.own_text(body) == "Yes, Friday works.\n\nTom"
    assert assist_eval.own_text("Merci !\n\nLe lundi 2 nov., Paul a écrit :\n> Bonjour") == "Merci !"


def test_lead_baseline_takes_two_sentences_after_the_greeting():
    thread = {"messages": [{"body": "Hi Alice,\n\nOne. Two? Three!\n\n> quoted. text."}]}
    assert assist_eval.lead_baseline(thread) == "One. Two?"


def test_intent_precision_recall_and_silence_rate():
    threads = [
        {"id": "a", "language": "en", "referenceSummary": "x", "expectsReply": True,
         "expectedIntents": ["question", "scheduling"]},
        {"id": "b", "language": "en", "referenceSummary": "x", "expectsReply": False, "expectedIntents": []},
        {"id": "c", "language": "pl", "referenceSummary": "x", "expectsReply": True, "languageSupported": False,
         "expectedIntents": ["question"]},
    ]
    outputs = {
        "a": {"summary": "x", "suggestions": [{"intent": "question"}, {"intent": "thanks"}]},
        "b": {"summary": "x", "suggestions": [{"intent": "thanks"}]},
        "c": {"summary": "x", "suggestions": []},
    }
    figures = assist_eval.evaluate(threads, outputs)
    assert figures["intentPrecision"] == pytest.approx(0.5)
    assert figures["intentRecall"] == pytest.approx(0.5)
    assert figures["replyThreads"] == 1
    assert figures["silentThreads"] == 2
    assert figures["unwantedSuggestionRate"] == pytest.approx(0.5)
    assert figures["rougeL"]["overall"] == pytest.approx(1.0)


def _load_all():
    return [(path, json.loads(path.read_text(encoding="utf-8"))) for path in sorted(SET_DIR.glob("*.json"))]


def test_every_thread_file_is_well_formed():
    ids = set()
    for path, thread in _load_all():
        assert thread["id"] == path.stem, path
        assert thread["id"] not in ids
        ids.add(thread["id"])
        assert thread["category"] in assist_eval.CATEGORIES, path
        assert isinstance(thread["language"], str) and len(thread["language"]) == 2, path
        assert thread["messages"], path
        for message in thread["messages"]:
            for field in ("from", "to", "cc", "date", "subject", "body"):
                assert field in message, (path, field)
            assert message["body"].strip(), path
        assert "@" in thread["user"]
        assert thread["referenceSummary"].strip(), path
        assert isinstance(thread["expectsReply"], bool), path
        assert set(thread["expectedIntents"]) <= set(assist_eval.INTENTS), path
        assert thread["notes"].strip(), path
        supported = thread["language"] in assist_eval.SUPPORTED_LANGUAGES
        assert thread.get("languageSupported", True) == supported, path
        if thread["category"] in ("automated", "newsletter", "notification"):
            assert thread["expectsReply"] is False, path
        if thread["messages"][-1]["from"]["address"] == thread["user"]:
            assert thread["expectsReply"] is False, path


def test_the_mix_matches_issue_19():
    threads = [thread for _, thread in _load_all()]
    languages = Counter(t["language"] for t in threads)
    categories = Counter(t["category"] for t in threads)
    total = len(threads)
    assert total >= 64, f"only {total} threads"
    for language in ("de", "fr", "es"):
        assert languages[language] >= 12, languages
    assert sum(n for lang, n in languages.items() if lang not in assist_eval.SUPPORTED_LANGUAGES) >= 2
    assert categories["business"] >= 0.3 * total, categories
    assert categories["personal"] >= 0.15 * total, categories
    bulk = categories["automated"] + categories["newsletter"] + categories["notification"]
    assert bulk >= 0.2 * total, categories
    assert sum(len(t["messages"]) >= 8 for t in threads) >= 8
    assert sum(t["messages"][-1]["from"]["address"] == t["user"] for t in threads) >= 2
    assert any(len(t["messages"]) == 1 and len(t["messages"][0]["body"].split()) < 20 for t in threads)
    assert any("List-Unsubscribe" in t.get("headers", {}) for t in threads)
