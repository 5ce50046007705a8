"""Reading the prompt into a llama.cpp model step by step, so a long prompt reports its progress and
can be stopped: llama-cpp-python's ``create_chat_completion`` reads it in one call that says nothing
for as long as it takes (30-60 s for a few thousand tokens on two cores).

The prompt is rendered and tokenized exactly as the model's chat handler will (the GGUF's own chat
template, through llama-cpp-python's ``Jinja2ChatFormatter``), then evaluated with ``Llama.eval`` a
step at a time. The completion that follows finds the whole prompt already evaluated (its prefix
cache) and starts sampling at once. Tokens the previous request already evaluated (the same system
prompt and history) are kept, not read again. Models whose chat handler is not their GGUF template
(a named ``chat_format``) are not read ahead: the completion reads them as before, without progress.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from llama_cpp import Llama

__all__ = ["PROMPT_STEP_TOKENS", "evaluate_prompt", "prompt_tokens"]

#: Tokens read per step: a Stop and a progress report come at least this often (a second or two on
#: two cores). Smaller steps read more slowly (128 measured about 15% slower than 512).
PROMPT_STEP_TOKENS = 256

#: The chat format llama-cpp-python gives a model that brings its own chat template.
_GGUF_TEMPLATE_FORMAT = "chat_template.default"

Progress = Callable[[int, int, int], None]  # done, total (new tokens), cached


def prompt_tokens(llama: Llama, messages: Sequence[Mapping[str, Any]]) -> list[int] | None:
    """The tokens ``llama.create_chat_completion(messages)`` will evaluate, or None when the model's
    chat handler is not its GGUF chat template (then they cannot be known beforehand) or the
    template refuses the messages (the completion then says why)."""
    import jinja2
    from llama_cpp import llama_chat_format

    template = llama.metadata.get("tokenizer.chat_template")
    if template is None or llama.chat_handler is not None or llama.chat_format != _GGUF_TEMPLATE_FORMAT:
        return None
    # As Llama.__init__ builds the formatter of the GGUF template, and its handler tokenizes.
    formatter = llama_chat_format.Jinja2ChatFormatter(
        template=template,
        eos_token=_token_text(llama, llama.token_eos()),
        bos_token=_token_text(llama, llama.token_bos()),
        stop_token_ids=[llama.token_eos()],
    )
    try:
        result = formatter(messages=cast(Any, list(messages)))
    except (ValueError, jinja2.TemplateError):
        return None
    return llama.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True)


def evaluate_prompt(llama: Llama, tokens: Sequence[int], stop: threading.Event, progress: Progress) -> int:
    """Evaluate ``tokens`` after what the model already holds of them, ``PROMPT_STEP_TOKENS`` at a
    time, calling ``progress(done, total, cached)`` before the first step and after each; returns
    how many were cached (kept from the previous request). Once ``stop`` is set it stops before the
    next step, leaving the model consistent (it holds the tokens read so far).

    A prompt that does not fit the context is left alone: the completion then says so.
    """
    if not tokens or len(tokens) >= llama.n_ctx():
        return 0
    cached = _common_prefix(llama, tokens)
    if cached == len(tokens):
        cached -= 1  # read the last token again: sampling needs the logits of a live evaluation
    if cached and _keeps_no_prefix(llama):
        cached = 0
    if not cached:
        llama.reset()  # type: ignore[no-untyped-call]  # clears a recurrent model's state too
    llama.n_tokens = cached  # Llama.eval drops the cache after this position first
    total = len(tokens) - cached
    progress(0, total, cached)
    for start in range(cached, len(tokens), PROMPT_STEP_TOKENS):
        if stop.is_set():
            break
        llama.eval(tokens[start : start + PROMPT_STEP_TOKENS])
        progress(min(start + PROMPT_STEP_TOKENS, len(tokens)) - cached, total, cached)
    return cached


def _common_prefix(llama: Llama, tokens: Sequence[int]) -> int:
    held = llama.input_ids[: llama.n_tokens].tolist()
    length = 0
    for old, new in zip(held, tokens, strict=False):
        if old != new:
            break
        length += 1
    return length


def _keeps_no_prefix(llama: Llama) -> bool:
    """Recurrent and hybrid models cannot drop the end of their state, so they keep no prefix."""
    import llama_cpp

    return bool(
        llama_cpp.llama_model_is_recurrent(llama.model) or llama_cpp.llama_model_is_hybrid(llama.model)
    )


def _token_text(llama: Llama, token: int) -> str:
    if token == -1:
        return ""
    return llama.detokenize([token], special=True).decode("utf-8", errors="ignore")
