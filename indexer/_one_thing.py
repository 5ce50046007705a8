"""A question about what one thing is ("what's git", "what is terraform", "explain oauth simply")
asks to know one thing: at most the best item about it, not every item named after it.

In a library of a thousand skills such a question names a topic several items are named after
("git-advanced-workflows", "git-safety-net", "git-worktree-manager"…), and each of them matches
the short message well by its name: "what's git" was given five git skills, "what is terraform"
four. The best item is kept, because a question about the user's own term ("what is falcon", a
project a reference describes) needs it; the others are left out with a reason of their own.
"""

from __future__ import annotations

import re

from indexer._texts import LEAD_IN, about_own_things

__all__ = ["asks_what_one_thing_is"]

# The thing asked about: one to three words ("git", "a git rebase", "HTTP 418", "oauth pkce").
_THING = r"(?:an? |the )?[\w.+#/'’-]+(?: [\w.+#/'’-]+){0,2}"
_WHAT_ONE_THING = re.compile(
    LEAD_IN + r"(?:"
    rf"what(?:'s|’s|s| is| are) {_THING}(?: (?:exactly|actually|again|used for))?"
    rf"|what (?:does|do) {_THING} (?:actually )?(?:mean|stand for)"
    rf"|(?:can you |could you |please )?explain (?:what )?{_THING}(?: is)?"
    r"(?: (?:simply|briefly|to me|in simple (?:words|terms)|in one sentence|like i'?m (?:five|5)))?"
    r")\s*[?.!]*\s*$",
    re.IGNORECASE,
)


def asks_what_one_thing_is(message: str) -> bool:
    """Whether ``message`` only asks what one thing is: the whole message, a thing of at most
    three words, and not about the user's own things ("what's my plan today" asks to act)."""
    return _WHAT_ONE_THING.match(message) is not None and not about_own_things(message)
