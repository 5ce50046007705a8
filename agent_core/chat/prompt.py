"""Building the messages sent to the model *from* the RequestContext, so the record is exact.

Order follows what changes least: the system message (system prompt, then the session's rules and
references, always before manual, each by priority) ends the stable prefix that providers cache;
then the history; then the items selected for this message alone, with the new message.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

from agent_core.agent.items import DocumentItem
from agent_core.agent.loader import Agent
from agent_core.chat.tool_runtime import ToolDescriptor
from agent_core.context.items import ItemRef, RequestContext, RequestItem
from agent_core.providers.base import ChatMessage, ToolCall, ToolSpec
from agent_core.store.chats import StoredMessage

__all__ = ["Prompt", "ToolBinding", "build_prompt", "history_messages", "tool_api_name"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_MODE_ORDER = {"always": 0, "manual": 1, "agent": 2}
INTERRUPTED_TOOL_RESULT = "The tool call did not finish (the chat was interrupted)."


@dataclass(frozen=True)
class ToolBinding:
    """A tool as offered to the model, and the MCP tool it stands for."""

    spec: ToolSpec
    server: str
    tool: str
    permission_required: bool


@dataclass(frozen=True)
class Prompt:
    messages: tuple[ChatMessage, ...]
    tools: tuple[ToolBinding, ...]

    def binding(self, api_name: str) -> ToolBinding | None:
        return next((b for b in self.tools if b.spec.name == api_name), None)


def tool_api_name(server: str, tool: str) -> str:
    """A name every provider accepts (``[A-Za-z0-9_-]{1,64}``), stable for the same tool."""
    name = _UNSAFE.sub("_", f"{server}__{tool}")
    if len(name) > 64:
        digest = hashlib.sha1(f"{server}/{tool}".encode()).hexdigest()[:8]
        name = f"{name[:55]}_{digest}"
    return name


def build_prompt(
    agent: Agent,
    context: RequestContext,
    history: Sequence[StoredMessage],
    user_text: str,
    tools: Mapping[ItemRef, ToolDescriptor],
    current_turns: Sequence[ChatMessage] = (),
    attached: Mapping[ItemRef, DocumentItem] | None = None,
) -> Prompt:
    """The model request for ``context``: every item in it, and nothing that is not.

    ``history`` is the saved chat before this message; ``current_turns`` are this reply's earlier
    model turns and tool results, when the model has called tools.
    """
    attached = attached or {}
    session_docs = _documents(agent, context, ("always", "manual"), attached)
    system = _system_text(agent.config.system_prompt, session_docs)
    messages: list[ChatMessage] = [ChatMessage("system", system, cache_breakpoint=True)]
    messages += history_messages(history)
    agent_docs = _documents(agent, context, ("agent",), attached)
    messages.append(ChatMessage("user", _with_selected_items(agent_docs, user_text)))
    messages += current_turns
    bindings = tuple(
        ToolBinding(
            spec=ToolSpec(
                name=tool_api_name(descriptor.server, descriptor.name),
                description=descriptor.description,
                input_schema=descriptor.input_schema,
            ),
            server=descriptor.server,
            tool=descriptor.name,
            permission_required=descriptor.permission_required,
        )
        for item in sorted(context.of_type("tool"), key=lambda i: (i.ref.server or "", i.ref.name))
        if (descriptor := tools.get(item.ref)) is not None
    )
    return Prompt(messages=tuple(messages), tools=bindings)


def history_messages(history: Sequence[StoredMessage]) -> list[ChatMessage]:
    """Saved messages as model messages; every tool call is followed by its result."""
    out: list[ChatMessage] = []
    for message in history:
        if message.role == "user":
            out.append(ChatMessage("user", message.content))
        elif message.role == "assistant":
            if not message.content and not message.tool_calls:
                continue
            calls = tuple(
                ToolCall(
                    id=record.id, name=tool_api_name(record.server, record.tool), arguments=record.arguments
                )
                for record in message.tool_calls
            )
            out.append(ChatMessage("assistant", message.content, tool_calls=calls))
            for record in message.tool_calls:
                finished = record.elapsed_seconds is not None or record.approval == "denied"
                out.append(
                    ChatMessage(
                        "tool",
                        record.result if finished else INTERRUPTED_TOOL_RESULT,
                        tool_call_id=record.id,
                        tool_name=tool_api_name(record.server, record.tool),
                        is_error=record.is_error or not finished,
                    )
                )
    return out


def _documents(
    agent: Agent, context: RequestContext, modes: tuple[str, ...], attached: Mapping[ItemRef, DocumentItem]
) -> list[tuple[RequestItem, DocumentItem]]:
    found = []
    for item in context.items:
        if item.include_mode not in modes or item.ref.type == "tool":
            continue
        document = attached.get(item.ref) or agent.document(
            "rule" if item.ref.type == "rule" else "reference", item.ref.name
        )
        if document is not None:
            found.append((item, document))
    found.sort(
        key=lambda pair: (
            pair[1].kind != "rule",
            _MODE_ORDER[pair[0].include_mode],
            pair[1].priority_level,
            pair[1].name.lower(),
        )
    )
    return found


def _render(document: DocumentItem) -> str:
    tag = document.kind
    description = f' description="{escape(document.description)}"' if document.description else ""
    return f'<{tag} name="{escape(document.name)}"{description}>\n{document.text.strip()}\n</{tag}>'


def _system_text(system_prompt: str, documents: Sequence[tuple[RequestItem, DocumentItem]]) -> str:
    parts = [system_prompt.strip()] if system_prompt.strip() else []
    rules = [_render(doc) for _, doc in documents if doc.kind == "rule"]
    references = [_render(doc) for _, doc in documents if doc.kind == "reference"]
    if rules:
        parts.append("Follow these rules:\n<rules>\n" + "\n".join(rules) + "\n</rules>")
    if references:
        parts.append(
            "Use these references when they help:\n<references>\n" + "\n".join(references) + "\n</references>"
        )
    return "\n\n".join(parts)


def _with_selected_items(documents: Sequence[tuple[RequestItem, DocumentItem]], user_text: str) -> str:
    if not documents:
        return user_text
    rendered = "\n".join(_render(doc) for _, doc in documents)
    return f'<context selected-for="this message">\n{rendered}\n</context>\n\n{user_text}'
