"""Whether a message asks for a tool's action or for work only the model does.

A routed tool answers a message with no model call, so it must be what the message asks for. A
tool's words can match a request for writing ("write release notes from my notes" scored 0.52 for
``references.list_references``): the message's main verb says what is asked. Writing, drafting,
summarising, explaining, translating, rewriting and the like are the model's work, and the
message goes to the model; unless

- the message names a file, folder or link: the work needs what the model cannot see
  ("summarise ideas.md" needs ``read_file``; "write it to notes.md" needs ``write_file``), so the
  tool the message matches is still routed; or
- the tool's own action is that verb (``translate_text`` for "translate ...", a ``summarizer``
  sub-agent for "summarise ...", ``write_file`` for "write ... to a new file"): its name starts
  with the verb and the rest of its name is in the message.

Measured on benchmarks/routing (labelled messages, dev and holdout; docs/benchmarks.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer import one_edit_apart

__all__ = ["ModelWork", "model_work"]


@dataclass(frozen=True)
class ModelWork:
    """The model's work a message asks for: ``action`` is the plain verb ("write")."""

    action: str

    @property
    def reason(self) -> str:
        return f"the message asks to {self.action}, which the model does"


# Verbs whose work is the model's, as written, each with the action it names.
_MODEL_VERBS = {
    "write": "write",
    "rewrite": "rewrite",
    "draft": "draft",
    "compose": "write",
    "summarise": "summarise",
    "summarize": "summarise",
    "sum": "summarise",  # "sum up"
    "tldr": "summarise",
    "explain": "explain",
    "define": "explain",
    "describe": "describe",
    "translate": "translate",
    "rephrase": "rephrase",
    "reword": "rephrase",
    "paraphrase": "rephrase",
    "proofread": "proofread",
    "polish": "edit",
    "improve": "edit",
    "shorten": "rewrite",
    "condense": "rewrite",
    "expand": "rewrite",
    "elaborate": "explain",
    "outline": "outline",
    "brainstorm": "brainstorm",
    "suggest": "suggest",
    "recommend": "suggest",
    "compare": "compare",
    "critique": "review",
    "generate": "write",
    "reply": "write",
    "respond": "write",
    "answer": "answer",
    "teach": "explain",
    "simplify": "rewrite",
}
# Nouns that open a request for the same work ("a summary of this thread", "tl;dr pls").
_MODEL_NOUNS = {
    "summary": "summarise",
    "translation": "translate",
    "explanation": "explain",
    "draft": "draft",
    "outline": "outline",
    "overview": "summarise",
    "rewrite": "rewrite",
    "poem": "write",
    "haiku": "write",
    "story": "write",
    "essay": "write",
}
# Words before the main verb that do not change what is asked.
_FILLERS = re.compile(
    r"^(?:(?:hey|hi|hello|ok|okay|so|please|pls|plz|kindly|now|quickly|quick|just|also|then|and|"
    r"alright|right|well|yo|thanks|thank you|"
    r"(?:can|could|would|will|wud|cud) (?:you|u|ya)(?: please| pls| maybe)?|"
    r"i (?:want|need|would like|'d like|’d like) (?:you |u )?to|id like (?:you )?to|"
    r"i (?:want|need|would like|'d like|’d like)|"
    r"go ahead and|let'?s|lets|help me(?: to)?|try to|try and|mind|"
    r"i'?m trying to|i am trying to)\b[\s,.:!]*)+",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z][a-z;']*", re.IGNORECASE)
# "tell me a joke / a story / about X / how / why" is the model's; "tell me the time" is not.
_TELL = re.compile(
    r"^(?:tell|give|show) (?:me|us) (?:a |an |some )?(?:joke|story|fun fact|tips?|ideas?|"
    r"examples?|summary|overview|explanation|about|how|why)\b",
    re.IGNORECASE,
)
# "make this shorter", "make it sound friendlier": rewriting what is already there.
_MAKE_OVER = re.compile(
    r"^(?:make|get) (?:this|it|that|these|them|the \w+)\b.*\b(?:shorter|longer|clearer|simpler|"
    r"friendlier|better|nicer|punchier|more \w+|less \w+)\b",
    re.IGNORECASE,
)
# A general question: "what is a b-tree", "how does dns work", "why is the sky blue".
_QUESTION = re.compile(
    r"^(?:what(?:'s|’s| is| are| does)? (?:a|an|the difference|the meaning|the point)\b|what does \S+ mean"
    r"|how (?:does|do|can|should|would) (?:i|you|we|one|a|an|the)?\b(?!.*\b(?:my|our)\b)"
    r"|why (?:is|are|does|do|did|would|should)\b|is it (?:better|ok|okay|true)\b)",
    re.IGNORECASE,
)
# What the model cannot see: a file name with an extension, a path, a link, a folder named as such.
_SOURCE = re.compile(
    r"(?:https?://|www\.)\S+|(?<![\w/])(?:~|\.{1,2})?/[\w.@-]+|\b[\w-]+\.(?:md|markdown|txt|rst|pdf|docx?|"
    r"csv|tsv|json|ya?ml|toml|ini|cfg|xml|html?|css|js|ts|py|ipynb|rb|go|rs|java|c|h|cpp|sh|sql|log|png|"
    r"jpe?g|gif|svg)\b|\b(?:folder|directory|dir)\b",
    re.IGNORECASE,
)
# Where the dictated text starts ("summarise this: <pasted text>"): names in it are not sources.
_PAYLOAD = re.compile(r":\s|\n|\s[-–—]\s")
# Name words that say nothing about the tool's object ("translate_text").
_GENERIC = {"text", "content", "message", "it", "tool", "run"}


def model_work(message: str, tool_name: str = "") -> ModelWork | None:
    """The model's work ``message`` asks for, or None when it asks for something a tool may do
    (then the tool's score decides). With ``tool_name``, a tool whose own action is the asked verb
    is not ruled out."""
    head = _head(message)
    work = _asked_work(head)
    if work is None or _SOURCE.search(head) is not None:
        return None
    if tool_name and _tool_does(tool_name, work, message):
        return None
    return work


def _head(message: str) -> str:
    """The request part of ``message``, without dictated or pasted text after a colon or line."""
    text = message.strip().strip("\"'“”")
    payload = _PAYLOAD.search(text)
    if payload is not None and payload.start() >= 6:
        text = text[: payload.start()]
    return text.strip()


def _asked_work(head: str) -> ModelWork | None:
    if _QUESTION.search(head) or _TELL.search(head):
        return ModelWork("explain" if _QUESTION.search(head) else "write")
    rest = _FILLERS.sub("", head).lstrip()
    if _TELL.search(rest) or _QUESTION.search(rest):
        return ModelWork("explain" if _QUESTION.search(rest) else "write")
    if _MAKE_OVER.search(rest):
        return ModelWork("rewrite")
    words = _WORD.findall(rest)
    if not words:
        return None
    first = words[0].lower().replace(";", "")
    if first in ("a", "an", "the", "some", "quick", "short") and len(words) > 1:
        noun = words[1].lower()
        action = _MODEL_NOUNS.get(noun) or _near(noun, _MODEL_NOUNS)
        return ModelWork(action) if action else None
    action = _MODEL_VERBS.get(first) or _MODEL_NOUNS.get(first) or _near(first, _MODEL_VERBS)
    if action == "summarise" and first == "sum" and (len(words) < 2 or words[1].lower() != "up"):
        return None
    return ModelWork(action) if action else None


def _near(word: str, known: dict[str, str]) -> str | None:
    """The action of the known word ``word`` is a typo of (one letter added, dropped, changed or
    two swapped), for words of five letters or more ("summerize", "explian", "wirte")."""
    if len(word) < 5:
        return None
    for candidate, action in known.items():
        if len(candidate) >= 5 and one_edit_apart(word, candidate):
            return action
    return None


def _tool_does(tool_name: str, work: ModelWork, message: str) -> bool:
    """Whether the tool's name says it does ``work``: its first word is the verb or the one who
    does it ("translate_text", a ``summarizer`` sub-agent, "write_file") and its other words are
    in the message ("write_file" for "write a file called ...", not for "write release notes")."""
    words = [w.lower() for w in re.findall(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])", tool_name)]
    if not words:
        return False
    if not any(
        action == work.action and words[0].startswith(verb[: max(4, len(verb) - 2)])
        for verb, action in _MODEL_VERBS.items()
    ):
        return False
    said = message.lower()
    return all(w in _GENERIC or w in said for w in words[1:])
