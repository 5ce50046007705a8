from __future__ import annotations

import numpy as np

from indexer._lexical import Bm25, tokenize


def test_tokens_are_lowercased_stemmed_and_split_on_code_case() -> None:
    assert tokenize("Create_Issue createPullRequest the Commits") == [
        "create",
        "issue",
        "create",
        "pull",
        "request",
        "commit",
    ]


def test_scores_are_fractions_of_the_best_possible_match() -> None:
    bm25 = Bm25(["git commit messages", "billing invoices refunds", "python style"])
    scores = bm25.scores("commit message")
    assert scores.argmax() == 0
    assert 0 < scores[0] < 1
    assert scores[1] == scores[2] == 0


def test_words_the_corpus_never_uses_lower_the_fraction() -> None:
    bm25 = Bm25(["git commit messages", "billing invoices refunds"])
    assert bm25.scores("commit")[0] > bm25.scores("commit weather")[0]


def test_an_empty_query_or_corpus_scores_zero() -> None:
    assert Bm25(["anything"]).scores("the of and").tolist() == [0.0]
    assert Bm25([]).scores("anything").shape == (0,)
    assert np.all(Bm25(["", "x"]).scores("y") == 0)


def test_greetings_and_thanks_carry_no_topic() -> None:
    assert tokenize("Hello! Hi, thanks, ok bye") == []
