"""Precision of the offline memory extractor on labelled conversations (extraction.jsonl).

    .venv/bin/python benchmarks/memory/evaluate_extraction.py [--split dev|holdout|all] [--verbose]

Every USER message goes through what a chat does with memory extraction on
(agent_core/memory/chat_extraction.py ``proposals_in``: the explicit "remember that ..." request, else
the rule extractor). Assistant messages are never read: what the assistant claims about the user is
not the user's word.

A proposal is correct when it matches an expected memory of its conversation:
- its quote overlaps the expected quote: both are found in the same user message and their
  character spans share at least half of the shorter span; and
- its text is close to the expected text: the Dice coefficient of their content words
  (lower case, punctuation and a short list of stop words dropped) is at least 0.5.
Precision = correct proposals / proposals; recall = expected memories matched by a proposal /
expected memories; misattributed = proposals whose quote is in no user message of the
conversation (goal 0). Goals from the issue: precision ≥ 0.80, misattributed 0.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent_core.agent.schema import MemoryConfig
from agent_core.memory.chat_extraction import proposals_in

HERE = Path(__file__).resolve().parent
QUOTE_OVERLAP = 0.5
TEXT_DICE = 0.5
GOAL_PRECISION = 0.80
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "am",
        "i",
        "i'm",
        "im",
        "me",
        "my",
        "we",
        "we're",
        "our",
        "us",
        "you",
        "your",
        "it",
        "its",
        "this",
        "that",
        "there",
        "so",
        "very",
        "really",
        "just",
        "also",
        "about",
        "as",
        "by",
        "from",
    ]
)


@dataclass(frozen=True)
class Found:
    conversation: str
    message: int  # index in the conversation's messages
    text: str
    quote: str


def content_words(text: str) -> set[str]:
    words = re.findall(r"[\w'@.+-]+", text.lower())
    return {w.strip(".'") for w in words if w.strip(".'") and w.strip(".'") not in STOP_WORDS}


def dice(a: str, b: str) -> float:
    left, right = content_words(a), content_words(b)
    if not left or not right:
        return 0.0
    return 2 * len(left & right) / (len(left) + len(right))


def spans(message: str, quote: str) -> list[tuple[int, int]]:
    out, start = [], message.find(quote)
    while start != -1 and quote:
        out.append((start, start + len(quote)))
        start = message.find(quote, start + 1)
    return out


def quotes_overlap(message: str, one: str, other: str) -> bool:
    for a0, a1 in spans(message, one):
        for b0, b1 in spans(message, other):
            shared = min(a1, b1) - max(a0, b0)
            if shared > 0 and shared >= QUOTE_OVERLAP * min(a1 - a0, b1 - b0):
                return True
    return False


def matches(found: Found, expected: dict[str, str], message: str) -> bool:
    return (
        quotes_overlap(message, found.quote, expected["quote"])
        and dice(found.text, expected["text"]) >= TEXT_DICE
    )


def extract(conversation: dict[str, Any], config: MemoryConfig) -> list[Found]:
    found = []
    for index, message in enumerate(conversation["messages"]):
        if message["role"] != "user":
            continue
        for proposal in proposals_in(message["text"], config):
            found.append(Found(conversation["id"], index, proposal.text, proposal.quote))
    return found


def evaluate(conversations: list[dict[str, Any]], verbose: bool = False) -> dict[str, float]:
    config = MemoryConfig(extraction="rules")
    proposals = correct = expected_total = expected_found = misattributed = 0
    for conversation in conversations:
        messages = conversation["messages"]
        user_texts = [m["text"] for m in messages if m["role"] == "user"]
        found = extract(conversation, config)
        proposals += len(found)
        matched: set[int] = set()
        for item in found:
            if not any(item.quote in text for text in user_texts):
                misattributed += 1
                print(f"  MISATTRIBUTED {item.conversation}: {item.quote!r}")
            hits = [
                i
                for i, want in enumerate(conversation["expected"])
                if matches(item, want, messages[item.message]["text"])
            ]
            matched.update(hits)
            correct += bool(hits)
            if not hits and verbose:
                print(f"  WRONG {item.conversation}: {item.text!r} (quote {item.quote!r})")
        expected_total += len(conversation["expected"])
        expected_found += len(matched)
        if verbose:
            for i, want in enumerate(conversation["expected"]):
                if i not in matched:
                    print(f"  MISSED {conversation['id']}: {want['text']!r}")
    return {
        "precision": correct / proposals if proposals else 1.0,
        "recall": expected_found / expected_total if expected_total else 1.0,
        "misattributed": misattributed,
        "proposals": proposals,
        "expected": expected_total,
        "conversations": len(conversations),
    }


def load(split: str) -> list[dict[str, Any]]:
    rows = [
        json.loads(line)
        for line in (HERE / "extraction.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return [r for r in rows if split == "all" or r["split"] == split]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", choices=("dev", "holdout", "all"), default="all")
    parser.add_argument("--verbose", action="store_true", help="list wrong and missed proposals")
    args = parser.parse_args()
    splits = ("dev", "holdout") if args.split == "all" else (args.split,)
    results = {}
    for split in splits:
        if args.verbose:
            print(f"{split}:")
        results[split] = evaluate(load(split), args.verbose)
    print("Memory extraction (rules), user messages only")
    print(f"{'':16}" + "".join(f"{s:>10}" for s in splits) + f"{'goal':>10}")
    for key, goal in (("precision", f"≥ {GOAL_PRECISION}"), ("recall", ""), ("misattributed", "= 0")):
        cells = "".join(
            f"{results[s][key]:>10.2f}" if key != "misattributed" else f"{int(results[s][key]):>10}"
            for s in splits
        )
        print(f"{key:16}{cells}{goal:>10}")
    for key in ("proposals", "expected", "conversations"):
        print(f"{key:16}" + "".join(f"{int(results[s][key]):>10}" for s in splits))


if __name__ == "__main__":
    main()
