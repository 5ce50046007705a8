"""What-if: the RequestContext an earlier message would have got with other selection settings
or items turned on or off. It is built exactly as sending builds it; nothing is sent or saved."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from agent_core.agent.schema import SelectionConfig
from agent_core.budget.fitting import ContextOverflowError
from agent_core.chat.chat_items import ChatItems
from agent_core.chat.chat_settings import prompt_limits
from agent_core.chat.context_builder import build_request_context
from agent_core.chat.history import last_user_text, split_at_summary
from agent_core.chat.image_passing import with_images_for
from agent_core.chat.prompt import build_prompt
from agent_core.chat.resolved_model import ResolvedModel
from agent_core.context.items import ItemRef, RequestContext, SessionItem
from agent_core.context.sources import ContextRequest
from agent_core.errors import ContextDeskError, ProviderError
from agent_core.memory.chat_memories import ChatMemories
from agent_core.providers.base import ToolCalling
from agent_core.store.chats import StoredMessage

__all__ = ["what_if"]


async def what_if(
    chat: ChatItems,
    memories: ChatMemories,
    reply: StoredMessage,
    *,
    selection: Mapping[str, Any] | None = None,
    include: Iterable[ItemRef] = (),
    exclude: Iterable[ItemRef] = (),
) -> RequestContext:
    """See :meth:`ChatSession.what_if`."""
    if reply.request_context is None:
        raise ContextDeskError("this message has no recorded context to compare with")
    messages = chat.store.messages(chat.id, with_contexts=False, current_only=True)
    user = next((m for m in reversed(messages) if m.role == "user" and m.id < reply.id), None)
    if user is None:
        raise ContextDeskError("no user message comes before this reply")
    history = [m for m in messages if m.id < user.id]
    added, removed = set(include), frozenset(exclude)
    original = reply.request_context
    # The reply's own items stand in for the chat's, as they were then; agent items are chosen again.
    kept = [
        SessionItem(i.ref, "always" if i.include_mode == "always" else "manual")
        for i in original.items
        if i.include_mode != "agent" and i.ref.type != "memory"  # memories are recalled again
    ]
    kept += [SessionItem(ref, "manual") for ref in added if all(item.ref != ref for item in kept)]
    config = SelectionConfig.model_validate({**chat.selection_settings.model_dump(), **(selection or {})})
    model: ResolvedModel | None = None
    resolve_error = ""
    try:
        model = chat.models.resolve(original.model)
    except ProviderError as error:
        resolve_error = str(error)
    tool_calling: ToolCalling = model.tool_calling if model is not None else "native"
    if tool_calling == "routed":
        # The reply recorded only the tool routed to; every chat tool is a candidate again.
        kept += [
            item for item in chat.items if item.ref.type == "tool" and all(k.ref != item.ref for k in kept)
        ]
    request = ContextRequest(
        agent=chat.agent,
        message=user.content,
        previous_message=last_user_text(history),
        chat_items=tuple(kept),
        tools=chat.services.tools.tools(),
        excluded=removed,
    )
    built = await build_request_context(
        request,
        selector=chat.services.selector,
        selection=config,
        model_ref=original.model,
        tool_calling=tool_calling,
        memories=memories.preview(),
    )
    context = built.context
    if model is None:
        return replace(context, notes=replace(context.notes, budget=resolve_error))
    try:
        recent, summary = split_at_summary(history)
        prompt = build_prompt(
            chat.agent,
            context,
            recent,
            user.content,
            built.tools,
            counter=model.counter,
            limits=prompt_limits(model, chat.settings, chat.services.overflow_fixes),
            attached=chat.attached_resources(),
            summary=summary.content if summary else None,
            memories=built.memory_texts,
        )
    except (ProviderError, ContextOverflowError) as error:
        return replace(context, notes=replace(context.notes, budget=str(error)))
    return with_images_for(prompt, model).sent_context(context)
