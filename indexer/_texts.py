"""The text each strategy embeds for a document, already split into chunks."""

from __future__ import annotations

import re

from indexer.chunking import chunk_text, sentences
from indexer.documents import Document

__all__ = ["action_head", "anchor_chunks", "anchor_text", "clauses", "hybrid_chunks", "mask_opaque_tokens"]

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"(?:https?://|www\.)\S+|\b[\w-]+(?:\.[\w-]+)+/\S*", re.IGNORECASE)
_PATH = re.compile(r"(?<![\w/])(?:~|\.{1,2})?/[\w.@-]+(?:/[\w.@-]*)*")
# A bare file name with a common document, data, code or media extension (not ".js": node.js).
_FILE_NAME = re.compile(
    r"(?<![\w./@-])[\w-]+(?:\.[\w-]+)*\.(?:md|markdown|txt|rst|pdf|docx?|odt|rtf|xlsx?|csv|tsv|json|ya?ml|toml|ini|"
    r"cfg|xml|html?|css|jsx|ts|tsx|py|ipynb|rb|go|rs|java|kt|swift|c|cc|cpp|h|hpp|cs|php|sh|sql|log|"
    r"png|jpe?g|gif|svg|webp|mp3|mp4|mov|zip|tar|gz)(?![\w.-])",
    re.IGNORECASE,
)


def mask_opaque_tokens(message: str) -> str:
    """``message`` with links, e-mail addresses, paths and file names replaced by plain words."""
    message = _EMAIL.sub("someone", message)
    message = _URL.sub("a link", message)
    message = _PATH.sub(_path_word, message)
    return _FILE_NAME.sub("a file", message)


# Quoted text: opening quote at the start or after a space (not an apostrophe inside a word).
_QUOTED = re.compile(r"""(?:(?<=\s)|^)(["'“‘`])[^"'“”‘’`]{2,}["'”’`](?=\W|$)""")
# Where an argument's value begins: "...: <payload>", "... saying <payload>", "... that says <payload>".
_PAYLOAD = re.compile(r":\s+\S|\s(?:saying|that says|with the message|with message)\s", re.IGNORECASE)


def action_head(message: str) -> str | None:
    """What ``message`` asks to be done, without the values it dictates, or None if it has none.

    "make a linear ticket: csv export times out" -> "make a linear ticket"; "post 'deploying
    now' in #deploys" -> "post some text in #deploys". A tool is chosen by the action, while the
    dictated text (a title, a message, a comment) usually talks about something else entirely.
    """
    head = _QUOTED.sub("some text", message)
    payload = _PAYLOAD.search(head)
    if payload is not None and payload.start() >= 8:
        head = head[: payload.start()]
    head = head.strip()
    return head if head and head != message.strip() else None


#: A dictated value of at least this many words is a pasted text (an article, an e-mail, a log).
PASTED_MIN_WORDS = 25


def request_part(message: str) -> str:
    """``message`` without a pasted text: "summarize this text: <three paragraphs>" asks one thing,
    whatever the paragraphs say or however many sentences they have (they are data to work on, not
    requests). A short dictated value stays: "make a ticket: X and post it in #dev" asks two."""
    head = action_head(message)
    if head is None:
        return message
    pasted = message[len(head) :] if message.startswith(head) else ""
    return head if len(pasted.split()) >= PASTED_MIN_WORDS else message


# A question about how things are or differ, not a request to act: "what's the difference
# between a list and a tuple", "explain what a b-tree is", "ls -R vs tree, which is nicer?".
#: How a question may open before it asks ("so, what's…", "quick question: …").
LEAD_IN = r"^\s*(?:(?:so|ok|hey|quick question)[,:]?\s+)?"
_KNOWLEDGE_QUESTION = re.compile(
    LEAD_IN + r"(?:"
    r"what(?:'s|’s|s| is| are) (?:the )?(?:actual |real |main )?differences? between\b"
    r"|what(?:'s|’s|s| is| are) (?:a|an)\b"
    # "what's git", "what is recursion": one word to define, nothing else
    r"|what(?:'s|’s|s| is) [\w.+#-]+\s*\??\s*$"
    r"|what (?:does|do) .{1,40}? (?:mean|stand for)\b"
    r"|(?:can you |could you |please )?explain (?:what|how|why|the difference)\b"
    # "explain big O notation" (not "explain to the team…", a message to write)
    r"|(?:can you |could you |please )?explain (?!to\b)\w+"
    r"|how does\b|how do \w+ work\b|why (?:is|are|does|do) \w+"
    r"|is it \w+ or \w+\b"
    r")"
    r"|\b(?:which is|which one is) (?:better|nicer|faster|preferred)\b"
    r"|\w+ vs\.? \w+.*\?\s*$",
    re.IGNORECASE,
)


# ...unless it is about the user's own things ("what's the difference between our staging and
# prod configs?" needs the agent's references).
_OWN = re.compile(r"\b(?:our|my|mine|this|these|we|us)\b", re.IGNORECASE)


def is_knowledge_question(message: str) -> bool:
    """Whether ``message`` asks how things are in general rather than asking for something to be
    done or about the user's own things."""
    return _KNOWLEDGE_QUESTION.search(message) is not None and not about_own_things(message)


def about_own_things(message: str) -> bool:
    """Whether ``message`` speaks of the user's own things ("our", "my", "this"…); a quoted
    sentence is not the user's."""
    return _OWN.search(_QUOTED.sub(" ", message)) is not None


# Where one request of a compound message ends and the next begins.
_CLAUSE_BREAK = re.compile(
    r"\s*(?:[;\n]|(?<=[.!?])\s|,?\s+(?:and then|and also|then|also|plus|after that|and)\s+)\s*", re.IGNORECASE
)
#: A clause shorter than this many words is not a request of its own ("salt and pepper").
MIN_CLAUSE_WORDS = 3


def clauses(message: str) -> list[str]:
    """The requests of a compound message, or [] when it makes one: "deploy the hotfix to
    staging and tell the on-call channel" -> ["deploy the hotfix to staging", "tell the on-call
    channel"]. Parts too short to be a request join the one before them."""
    parts: list[str] = []
    for part in _CLAUSE_BREAK.split(message):
        part = part.strip(" ,")
        if not part:
            continue
        if parts and len(part.split()) < MIN_CLAUSE_WORDS:
            parts[-1] = f"{parts[-1]} and {part}"
        elif parts and len(parts[-1].split()) < MIN_CLAUSE_WORDS:
            parts[-1] = f"{parts[-1]} {part}"
        else:
            parts.append(part)
    return parts if len(parts) > 1 else []


def _path_word(match: re.Match[str]) -> str:
    return "a file" if "." in match.group(0).rsplit("/", 1)[-1].strip(".") else "a folder"


def anchor_text(document: Document) -> str:
    """The anchor's item text: ``name: description\\n\\ntext`` (tools: ``name: description``)."""
    head = f"{document.name}: {document.description}" if document.description else document.name
    if document.kind == "tool":
        return head
    return f"{head}\n\n{document.text}" if document.text else head


def anchor_chunks(document: Document) -> list[str]:
    """The anchor's chunks of ``document``."""
    return chunk_text(anchor_text(document))


def _words(name: str) -> str:
    return name.replace("_", " ").replace("-", " ")


#: The most sentences of a skill's description that get a chunk each (a description is short by
#: the Agent Skills format, but an imported one is not trusted to be).
DESCRIPTION_SENTENCES_MAX = 8


def hybrid_chunks(document: Document) -> list[str]:
    """The hybrid's chunks: the anchor's for rules and references. A tool gets a head chunk
    ``name words (server): description`` and, if it has parameters, a chunk
    ``name words parameters: a: ...; b: ...``, so that chunk still says which tool it is.
    A skill whose description has several sentences gets a chunk ``name words: sentence`` for each
    (see :func:`description_sentences`). Then one chunk per example request (a message like one of
    them then matches the item as well as it matches them).
    """
    extra = [text for text in document.examples if text.strip()]
    if document.kind != "tool":
        extra = description_sentences(document) + extra
        return anchor_chunks(document) + [chunk for text in extra for chunk in chunk_text(text)]
    server = f" ({document.server})" if document.server else ""
    head = f"{_words(document.name)}{server}"
    chunks = chunk_text(f"{head}: {document.description}" if document.description else head)
    if document.text.strip():
        parameters = "; ".join(line.strip() for line in document.text.splitlines() if line.strip())
        chunks += chunk_text(f"{_words(document.name)} parameters: {parameters}")
    return chunks + [chunk for text in extra for chunk in chunk_text(text)]


def description_sentences(document: Document) -> list[str]:
    """A skill's description sentence by sentence, each as ``name words: sentence``; none for
    another kind, a one-sentence description, or a skill's description tier (``by_sentence``
    False: the whole description only, while its sentences wait for the background).

    A skill is judged on its name and description, and a description says several things: what
    the skill does, when to use it, what it covers ("Root cause analysis for bugs. Use when
    something is broken, crashing or slow."). Embedded whole, the mean of them meets a message
    about one of them less well than the sentence that says it; each sentence keeps the name, so
    that it still says which skill it is. Rules and references are not split: their bodies are
    matched paragraph by paragraph already, and more undiscounted chunks per item only added
    chance matches among a thousand of them.
    """
    if document.kind != "skill" or not document.by_sentence or not document.description.strip():
        return []
    parts = sentences(" ".join(document.description.split()))
    if len(parts) < 2:
        return []
    name = _words(document.name)
    return [f"{name}: {part}" for part in parts[:DESCRIPTION_SENTENCES_MAX]]


def deletion_variants(word: str) -> set[str]:
    """``word`` and every string one deletion from it (a symmetric-delete neighbourhood: two
    words within one substitution, insertion, deletion or swap share one of these)."""
    return {word} | {word[:i] + word[i + 1 :] for i in range(len(word))}


def index_for_typos(variants: dict[str, set[str]], word: str) -> None:
    """Add ``word`` to ``variants`` (one-deletion variant -> words), for :func:`typos_of`."""
    for variant in deletion_variants(word):
        variants.setdefault(variant, set()).add(word)


def typos_of(said: str, variants: dict[str, set[str]]) -> set[str]:
    """The words of ``variants`` (see :func:`index_for_typos`) within one edit of ``said`` that start
    with its letter: a misspelling rarely changes the first letter, and requiring it keeps
    "openai" from matching "openapi"."""
    found: set[str] = set()
    for variant in deletion_variants(said):
        found.update(variants.get(variant, ()))
    return {word for word in found if word[0] == said[0] and one_edit_apart(said, word)}


def one_edit_apart(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one substitution, insertion, deletion or swap of neighbours."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    start = 0
    while start < len(a) and a[start] == b[start]:
        start += 1
    if len(a) < len(b):
        return a[start:] == b[start + 1 :]
    if a[start + 1 :] == b[start + 1 :]:
        return True  # one substitution (or equal)
    return a[start : start + 2] == b[start : start + 2][::-1] and a[start + 2 :] == b[start + 2 :]
