"""Images of tool results reach the chat's model when it can see them, within bounds, and the
request's manifest says for each image whether it was passed or left to its summary line."""

from __future__ import annotations

import base64
import functools
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.agent.schema import ToolDefaults
from agent_core.chat.events import ChatEvent, ReplyFinished
from agent_core.chat.image_passing import ImageLimits, pass_images
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.mcp import McpManager
from agent_core.providers.base import ChatMessage, ImageInput, ProviderSettings
from agent_core.providers.local_llama import LocalLlamaProvider
from agent_core.providers.retry import stream_with_retries
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from tests.support.mcp_servers import npm_server, require_node_modules

pytestmark = pytest.mark.anyio

PNG = "image/png"


async def no_sleep(seconds: float) -> None:
    return None


@pytest.fixture(scope="module")
def node_modules() -> Path:
    return require_node_modules()


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = tmp_path / "agent"
    create_agent(root)
    return load_agent(root)


async def reply_with_tiny_image(
    agent: Agent, tmp_path: Path, node_modules: Path, provider: ScriptedProvider
) -> ReplyFinished:
    provider.enqueue_tool_calls([("everything__get-tiny-image", {}, "c1")])
    provider.enqueue_reply("A tiny image.")
    server = npm_server(
        node_modules, "server-everything", "stdio", toolDefaults=ToolDefaults(permission_required=False)
    )
    async with McpManager({"everything": server}) as manager:
        session = ChatSession.create(
            agent,
            ChatStore(tmp_path / "chats.sqlite3"),
            ChatServices(
                resolve_provider=lambda model: (provider, "x"),
                tools=manager,
                streamer=functools.partial(stream_with_retries, sleep=no_sleep),
            ),
        )
        events: AsyncIterator[ChatEvent] = session.send("show me the image")
        finished = [e async for e in events if isinstance(e, ReplyFinished)]
    return finished[-1]


async def test_a_model_that_can_see_is_given_the_image_and_the_manifest_says_so(
    agent: Agent, tmp_path: Path, node_modules: Path
) -> None:
    provider = ScriptedProvider(
        ProviderSettings(provider_id="scripted", type="scripted", vision_models=("x",))
    )
    finished = await reply_with_tiny_image(agent, tmp_path, node_modules, provider)
    [result] = [m for m in provider.requests[1].messages if m.role == "tool"]
    assert "[image: PNG 20x20, 3.9 KB]" in result.content
    assert [i.mime_type for i in result.images] == [PNG] and result.images[0].data.startswith("iVBOR")
    context = finished.message.request_context
    assert context is not None and context.manifest is not None
    [use] = context.manifest.images
    assert (use.call_id, use.tool, use.number, use.mime_type, use.passed) == (
        "c1",
        "everything__get-tiny-image",
        1,
        PNG,
        True,
    )
    assert 3_000 < use.size_bytes < 5_000


async def test_a_model_that_cannot_see_reads_the_summary_line_and_the_manifest_says_why(
    agent: Agent, tmp_path: Path, node_modules: Path
) -> None:
    provider = ScriptedProvider()  # no vision models listed: the scripted models see nothing
    finished = await reply_with_tiny_image(agent, tmp_path, node_modules, provider)
    [result] = [m for m in provider.requests[1].messages if m.role == "tool"]
    assert "[image: PNG 20x20, 3.9 KB]" in result.content and result.images == ()
    context = finished.message.request_context
    assert context is not None and context.manifest is not None
    [use] = context.manifest.images
    assert not use.passed
    model = agent.config.chat.model
    assert (
        use.reason == f"{model} cannot see images (if it can, add it to visionModels of provider 'scripted')"
    )


def image(size: int) -> ImageInput:
    """A valid base64 image payload of ``size`` bytes (the content does not matter here)."""
    return ImageInput(PNG, base64.b64encode(b"\x89PNG" + b"\0" * (size - 4)).decode())


def result(call_id: str, *images: ImageInput, content: str = "[image: PNG]") -> ChatMessage:
    return ChatMessage("tool", content, tool_call_id=call_id, tool_name="shots__capture", images=images)


def test_an_image_over_the_size_limit_is_summarised_not_sent() -> None:
    messages, uses = pass_images(
        [result("c1", image(3_000_000), image(1_000))], sees_images=True, image_types=frozenset({PNG})
    )
    assert [len(i.data) for i in messages[0].images] == [len(image(1_000).data)]
    assert [(u.number, u.passed, u.size_bytes) for u in uses] == [(1, False, 3_000_000), (2, True, 1_000)]
    assert uses[0].reason == "over 2.5 MB"


def test_the_requests_total_goes_to_the_newest_images() -> None:
    limits = ImageLimits(per_result=4, image_bytes=1_000, per_request=3, request_bytes=10_000)
    older = result("old", image(500), image(500))
    newer = result("new", image(500), image(500))
    messages, uses = pass_images(
        [older, ChatMessage("user", "more"), newer],
        sees_images=True,
        image_types=frozenset({PNG}),
        limits=limits,
    )
    assert (len(messages[0].images), len(messages[2].images)) == (1, 2)
    assert [(u.call_id, u.number, u.passed) for u in uses] == [
        ("old", 1, True),
        ("old", 2, False),
        ("new", 1, True),
        ("new", 2, True),
    ]
    assert "the request's images reached their limit (3 images" in uses[1].reason


def test_unreadable_types_bad_data_extra_images_and_summarised_rounds_are_not_sent() -> None:
    limits = ImageLimits(per_result=2)
    bad = ImageInput(PNG, "!!not base64!!")
    tiff = ImageInput("image/tiff", image(10).data)
    summarised = result("old", image(10), content="[earlier result, summarized] shots__capture()")
    current = result("new", tiff, bad, image(10), image(10), image(10))
    messages, uses = pass_images(
        [summarised, current], sees_images=True, image_types=frozenset({PNG}), limits=limits
    )
    assert messages[0].images == () and len(messages[1].images) == 2
    assert [u.reason for u in uses] == [
        "its result was summarized with its older tool round (keepToolRounds)",
        "image/tiff is not a type this provider reads",
        "its data is not valid base64",
        "",
        "",
        "only 2 images of a result are passed",
    ]


def test_the_local_model_is_never_given_images() -> None:
    local = LocalLlamaProvider(ProviderSettings(provider_id="offline", type="local", vision_models=("*",)))
    messages, uses = pass_images(
        [result("c1", image(100))],
        sees_images=local.accepts_images("smollm2"),
        image_types=local.image_types,
    )
    assert messages[0].images == () and [u.passed for u in uses] == [False]
