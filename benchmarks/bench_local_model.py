"""Time to first token of the bundled local model (SmolLM2-135M-Instruct, llama.cpp in-process).

    .venv/bin/python benchmarks/bench_local_model.py [--threads N] [--runs N]

Cold: a new provider, so the time includes loading the GGUF file (the OS file cache may be warm).
Warm: the model is loaded; the time is prompt evaluation plus the first sampled token.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import time

from agent_core.providers.base import (
    ChatMessage,
    ChatRequest,
    GenerationSettings,
    ProviderSettings,
    TextDelta,
)
from agent_core.providers.local_llama import DEFAULT_MODEL_ID, LocalLlamaProvider

QUESTIONS = [
    "What is the capital of France?",
    "Name a primary colour.",
    "What do bees make?",
    "How many legs does a spider have?",
    "What is frozen water called?",
    "Which planet is closest to the Sun?",
    "What language is spoken in Brazil?",
    "What gas do plants breathe in?",
]


def request(number: int) -> ChatRequest:
    # A different question each run: llama.cpp reuses the KV cache of an identical prefix, which would
    # make "warm" look faster than a new message in a real chat.
    return ChatRequest(
        messages=[
            ChatMessage("system", "You are a helpful assistant. Answer in one sentence."),
            ChatMessage("user", QUESTIONS[number % len(QUESTIONS)]),
        ],
        settings=GenerationSettings(model=DEFAULT_MODEL_ID, max_output_tokens=32, temperature=0.0),
    )


async def first_token_seconds(provider: LocalLlamaProvider, number: int) -> tuple[float, float, int]:
    """(seconds to the first token, seconds to the whole reply, tokens)."""
    started = time.perf_counter()
    first: float | None = None
    tokens = 0
    async for event in provider.stream(request(number)):
        if isinstance(event, TextDelta):
            tokens += 1
            if first is None:
                first = time.perf_counter() - started
    return first or 0.0, time.perf_counter() - started, tokens


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    settings = ProviderSettings(provider_id="offline", type="local", threads=args.threads, context_size=4096)
    provider = LocalLlamaProvider(settings)
    cold, _, _ = await first_token_seconds(provider, 0)
    warm_runs = [await first_token_seconds(provider, number) for number in range(1, args.runs + 1)]
    await provider.aclose()
    warm = statistics.median(run[0] for run in warm_runs)
    rate = statistics.median(run[2] / run[1] for run in warm_runs if run[1] > 0)
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} CPUs, threads={args.threads or 'auto'}"
    )
    print(f"cold time to first token (load + prompt + 1 token): {cold * 1000:.0f} ms")
    print(f"warm time to first token (median of {args.runs}): {warm * 1000:.0f} ms")
    print(f"warm generation rate incl. prompt (median): {rate:.0f} tokens/s")


if __name__ == "__main__":
    asyncio.run(main())
