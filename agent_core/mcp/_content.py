"""The SDK's content blocks as ContextDesk's plain values."""

from __future__ import annotations

import mcp_types

from agent_core.mcp.types import ContentPart, PromptMessage, ResourcePart, ToolAnnotations

__all__ = ["content_part", "prompt_message", "resource_part", "tool_annotations"]


def resource_part(contents: mcp_types.TextResourceContents | mcp_types.BlobResourceContents) -> ResourcePart:
    if isinstance(contents, mcp_types.TextResourceContents):
        return ResourcePart(
            uri=str(contents.uri), mime_type=contents.mime_type, text=contents.text, meta=contents.meta
        )
    return ResourcePart(
        uri=str(contents.uri), mime_type=contents.mime_type, blob=contents.blob, meta=contents.meta
    )


def content_part(block: mcp_types.ContentBlock) -> ContentPart:
    if isinstance(block, mcp_types.TextContent):
        return ContentPart("text", text=block.text)
    if isinstance(block, mcp_types.ImageContent):
        return ContentPart("image", mime_type=block.mime_type, data=block.data)
    if isinstance(block, mcp_types.AudioContent):
        return ContentPart("audio", mime_type=block.mime_type, data=block.data)
    if isinstance(block, mcp_types.ResourceLink):
        return ContentPart(
            "resource_link",
            text=block.title or block.name,
            mime_type=block.mime_type,
            uri=str(block.uri),
            description=block.description,
        )
    part = resource_part(block.resource)
    return ContentPart("resource", text=part.text, mime_type=part.mime_type, data=part.blob, uri=part.uri)


def prompt_message(message: mcp_types.PromptMessage) -> PromptMessage:
    return PromptMessage(role=message.role, content=content_part(message.content))


def tool_annotations(hints: mcp_types.ToolAnnotations | None) -> ToolAnnotations:
    if hints is None:
        return ToolAnnotations()
    return ToolAnnotations(
        read_only=hints.read_only_hint,
        destructive=hints.destructive_hint,
        idempotent=hints.idempotent_hint,
        open_world=hints.open_world_hint,
    )
