"""A chat turn whose tool results carry images, as the provider tests send it."""

from __future__ import annotations

from agent_core.providers.base import ChatMessage, ImageInput, ToolCall

__all__ = ["PIXEL", "image_turn"]

# A 1x1 PNG, as a tool would give it back.
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def image_turn(unreadable: ImageInput) -> tuple[ChatMessage, ...]:
    """Two tool calls in one turn, the first with the PNG and ``unreadable`` (an image of a type
    the provider does not read), the second without images, then a user message."""
    calls = (ToolCall("call_a", "shots__capture", {}), ToolCall("call_b", "read_file", {"path": "a"}))
    return (
        ChatMessage("user", "Look at the screen"),
        ChatMessage("assistant", "", tool_calls=calls),
        ChatMessage(
            "tool",
            "[image: PNG 1x1, 0.1 KB]",
            tool_call_id="call_a",
            tool_name="shots__capture",
            images=(ImageInput("image/png", PIXEL), unreadable),
        ),
        ChatMessage("tool", "text of a", tool_call_id="call_b", tool_name="read_file"),
        ChatMessage("user", "What does it show?"),
    )
