"""The OpenAI-compatible provider against a real llama.cpp server serving the bundled SmolLM2."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from agent_core.providers.base import (
    ChatMessage,
    ChatRequest,
    FinishEvent,
    GenerationSettings,
    ProviderSettings,
    StreamEvent,
    TextDelta,
)
from agent_core.providers.openai_compatible import OpenAICompatibleProvider
from tests.support.models import offline_model_file

pytestmark = pytest.mark.slow

MODEL_ALIAS = "smollm2"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_serving(url: str, process: subprocess.Popen[bytes], timeout: float) -> None:
    """Poll /v1/models until it answers. Between polls, wait on the process (which also notices an
    early exit) with a short timeout instead of sleeping."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with opener.open(f"{url}/v1/models", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass  # not listening yet
        try:
            code = process.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            continue
        raise RuntimeError(f"llama_cpp.server exited with {code} before serving")
    raise TimeoutError(f"llama_cpp.server did not serve {url} within {timeout} s")


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = offline_model_file()
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette_context")
    port = free_port()
    log = (tmp_path_factory.mktemp("llama-server") / "server.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model),
            "--model_alias",
            MODEL_ALIAS,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
            "--n_threads",
            "2",
        ],
        # A file, not a pipe: the server logs a lot while loading and would block on a full pipe.
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(url, process, timeout=60)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def provider_for(url: str) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(
        ProviderSettings(
            provider_id="llama-server", type="openai-compatible", base_url=f"{url}/v1", timeout_seconds=30
        )
    )


@pytest.mark.anyio
async def test_a_real_llama_cpp_server_streams_a_reply(llama_server: str) -> None:
    provider = provider_for(llama_server)
    request = ChatRequest(
        messages=[ChatMessage("user", "Say hello.")],
        settings=GenerationSettings(model=MODEL_ALIAS, max_output_tokens=12, temperature=0.0),
    )
    try:
        events: list[StreamEvent] = [event async for event in provider.stream(request)]
    finally:
        await provider.aclose()
    text = "".join(event.text for event in events if isinstance(event, TextDelta))
    assert text.strip()
    assert isinstance(events[-1], FinishEvent) and events[-1].reason in ("stop", "length")


@pytest.mark.anyio
async def test_a_real_llama_cpp_server_lists_its_model(llama_server: str) -> None:
    provider = provider_for(llama_server)
    try:
        models = await provider.list_models()
    finally:
        await provider.aclose()
    assert MODEL_ALIAS in [model.id for model in models]
