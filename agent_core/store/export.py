"""Exporting a saved chat to Markdown or JSON, RequestContexts included."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter

from agent_core.context.items import ContextManifest, NearMiss, RequestContext, SamplingRecord
from agent_core.context.manifest_rows import manifest_rows
from agent_core.context.provenance import without_model_words
from agent_core.context.skill_report import describe_skill_uses
from agent_core.redaction import redact_credentials
from agent_core.store.chats import StoredMessage, StoredSession

__all__ = ["SubagentChat", "describe_context", "describe_manifest", "export_json", "export_markdown"]

#: A sub-agent's chat for an export: the stored chat and its messages (descendants in any order).
SubagentChat = tuple[StoredSession, list[StoredMessage]]

_MESSAGE = TypeAdapter(StoredMessage)
_SESSION = TypeAdapter(StoredSession)


def export_json(
    session: StoredSession,
    messages: list[StoredMessage],
    memory_texts: Mapping[str, str] | None = None,
    subagent_chats: Sequence[SubagentChat] = (),
) -> str:
    """The chat as JSON; ``memory_texts`` (id -> text) adds the recalled memories' words, and
    ``subagent_chats`` the transcripts of the sub-agents it ran (and theirs)."""
    data: dict[str, Any] = {
        "format": "contextdesk-chat",
        "version": 1,
        "session": _session_v1(session),
        "messages": [_message_v1(m) for m in messages],
    }
    recalled = _recalled_ids(messages)
    if recalled:
        data["memories"] = {i: (memory_texts or {}).get(i, FORGOTTEN) for i in recalled}
    if subagent_chats:
        data["subagent_chats"] = [
            {"session": _session_v1(child), "messages": [_message_v1(m) for m in child_messages]}
            for child, child_messages in subagent_chats
        ]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# Version 1 of the export format came before chats kept typed state; its shape is kept so that
# exports of the same chat stay comparable (and readable by scripts written against it).
def _session_v1(session: StoredSession) -> dict[str, Any]:
    data: dict[str, Any] = _SESSION.dump_python(session, mode="json")
    for typed in ("overrides", "allowed_tools", "attached_resources"):
        del data[typed]
    if data.get("parent") is None:
        data.pop("parent", None)  # a user's chat: the shape stays as it was
    for item in data["context_items"]:
        if item.get("loaded_at") is None:
            item.pop("loaded_at", None)  # only skills the model loaded have one
    legacy: dict[str, Any] = {
        key: dict(value)
        for key, value in (
            ("chat", session.overrides.chat),
            ("context", session.overrides.context),
            ("selection", session.overrides.selection),
        )
        if value
    }
    if session.allowed_tools:
        legacy["allowedTools"] = sorted(f"{ref.server}/{ref.name}" for ref in session.allowed_tools)
    if session.attached_resources:
        legacy["attachedResources"] = {
            f"{r.server}|{r.uri}": {"server": r.server, "uri": r.uri, "title": r.title, "text": r.text}
            for r in session.attached_resources
        }
    data["chat_settings"] = legacy
    return data


def _message_v1(message: StoredMessage) -> dict[str, Any]:
    data: dict[str, Any] = _MESSAGE.dump_python(message, mode="json")
    # Chats saved before errors were redacted may still quote a credential: never export it.
    if data.get("error"):
        data["error"] = redact_credentials(data["error"])
    if message.role == "error":
        data["content"] = redact_credentials(data["content"])
    if not message.replaced:
        data.pop("replaced", None)  # messages never replaced keep the v1 shape
    data.pop("parent_id", None)  # the transcript's order says it; branches are the store's own
    if not message.aside:
        data.pop("aside", None)
    for call in data.get("tool_calls") or ():
        for rich in (
            "structured",
            "structured_problem",
            "parts",
            "ui_resource_uri",
            "ended",
        ):  # text-only calls (and calls their tool answered) keep it too
            if not call.get(rich):
                call.pop(rich, None)
    if message.request_context is not None:
        for item in data["request_context"]["items"]:
            if not item.get("reason"):
                del item["reason"]  # only recalled memories have one; other items keep the v1 shape
            if item.get("skill_state") is None:
                item.pop("skill_state", None)  # only skills have one
        _drop_new_usage_fields(data["request_context"])
        for miss in data["request_context"]["near_misses"]:
            if miss.get("needed") is None:
                del miss["needed"]  # only items a threshold left out have one
        del data["request_context"]["notes"]
        data["request_context"]["extras"] = dict(message.request_context.notes.topics())
        if not message.request_context.delegations:
            del data["request_context"]["delegations"]  # replies that ran no sub-agent keep the v1 shape
        if not message.request_context.workflow_runs:
            del data["request_context"]["workflow_runs"]
        if not message.request_context.samplings:
            del data["request_context"]["samplings"]
        if not message.request_context.app_exchanges:
            del data["request_context"]["app_exchanges"]  # replies without an MCP App's posts
        if data["request_context"].get("provenance") is None:
            data["request_context"].pop("provenance", None)  # replies saved before it was kept
        for use in (data["request_context"].get("provenance") or {}).get("tools", ()):
            if not use.get("ended"):
                use.pop("ended", None)  # calls their tool answered keep the v1 shape
        for delegation in data["request_context"].get("delegations", ()):
            if delegation.get("provenance") is None:
                delegation.pop("provenance", None)
        manifest = data["request_context"].get("manifest")
        if manifest is not None and not manifest["images"]:
            del manifest["images"]  # requests without images of tool results keep the v1 shape
        if manifest is not None and not manifest["skills_listed_tokens"]:
            del manifest["skills_listed_tokens"]  # agents without skills keep the v1 shape
        selection = data["request_context"].get("selection")
        if selection is not None and not selection.get("description_only"):
            selection.pop("description_only", None)  # fully indexed selections keep the v1 shape
        if selection is not None:
            for key in ("min_score", "question_floor"):
                if not selection.get(key):
                    selection.pop(key, None)  # contexts saved before the floor was recorded
    return data


FORGOTTEN = "(no longer kept: forgotten or deleted)"


def _recalled_ids(messages: list[StoredMessage]) -> list[str]:
    ids = [
        item.ref.name
        for m in messages
        if m.request_context is not None
        for item in m.request_context.of_type("memory")
    ]
    return list(dict.fromkeys(ids))


def export_markdown(
    session: StoredSession,
    messages: list[StoredMessage],
    memory_texts: Mapping[str, str] | None = None,
    subagent_chats: Sequence[SubagentChat] = (),
) -> str:
    lines = [
        f"# {session.title or 'Untitled chat'}",
        "",
        f"Agent: `{session.agent_path}`  ",
        f"Started: {_when(session.created_at)}",
        "",
        *_transcript(messages, memory_texts, "##"),
    ]
    for child, child_messages in subagent_chats:
        link = child.parent
        name = link.subagent if link else "sub-agent"
        lines += [
            f"# Sub-agent {name}: {child.title or child.id}",
            "",
            f"Chat `{child.id}`, started by tool call `{link.call_id if link else ''}` of chat "
            f"`{link.session_id if link else ''}`",
            "",
            *_transcript(child_messages, memory_texts, "##"),
        ]
    return "\n".join(lines)


def _transcript(
    messages: list[StoredMessage], memory_texts: Mapping[str, str] | None, heading_level: str
) -> list[str]:
    lines: list[str] = []
    for message in messages:
        heading = {
            "user": "You",
            "assistant": "Assistant",
            "error": "Error",
            "summary": "Summary",
            "tool": "Tool",
        }[message.role]
        status = "" if message.status == "complete" else f" ({message.status})"
        if message.replaced:
            status += " (replaced: kept for reference, no longer sent)"
        text = redact_credentials(message.content) if message.role == "error" else message.content
        lines += [f"{heading_level} {heading}{status}", "", text.strip() or "_(no text)_", ""]
        for call in message.tool_calls:
            outcome = "error" if call.is_error else "result"
            elapsed = "" if call.elapsed_seconds is None else f", {call.elapsed_seconds:.2f} s"
            lines += [
                f"<details><summary>Tool {call.server}.{call.tool} ({call.approval or 'pending'}{elapsed})</summary>",
                "",
                "```json",
                json.dumps(dict(call.arguments), indent=2, ensure_ascii=False),
                "```",
                "",
                f"{outcome}:",
                "",
                "```",
                call.result,
                "```",
                "</details>",
                "",
            ]
        if message.error and message.error != message.content:
            lines += [f"> Error: {redact_credentials(message.error)}", ""]
        if message.request_context is not None:
            lines += [
                "<details><summary>Context used</summary>",
                "",
                *describe_context(message.request_context, memory_texts),
                "</details>",
                "",
            ]
    return lines


def describe_context(context: RequestContext, memory_texts: Mapping[str, str] | None = None) -> list[str]:
    """A RequestContext as Markdown lines: items by column, recalled memories with the reason,
    near-misses, settings and usage."""
    lines = []
    for title, kind in (("Rules", "rule"), ("References", "reference"), ("Tools", "tool")):
        items = context.of_type(kind)  # type: ignore[arg-type]
        lines.append(
            f"**{title}**: "
            + (", ".join(_item(i.ref.label(), i.include_mode, i.score) for i in items) or "none")
        )
        lines.append("")
    skills = describe_skill_uses(context)
    if skills:
        lines += ["**Skills**:", *skills, ""]
    memories = context.of_type("memory")
    if memories:
        lines.append("**Memories**:")
        for item in memories:
            text = (memory_texts or {}).get(item.ref.name, FORGOTTEN if memory_texts is not None else "")
            words = f" “{text}”" if text else ""
            lines.append(f"- `{item.ref.name}`{words} ({item.include_mode}: {item.reason})")
        lines.append("")
    if context.delegations:
        lines.append("**Sub-agents**:")
        for d in context.delegations:
            tokens = d.usage.total
            ended = f"stopped: {d.note}" if d.stopped_by else "finished"
            lines.append(
                f"- `{d.subagent}` ({d.context_mode}, {d.model}): “{' '.join(d.task.split())}” — {ended}; "
                f"{d.turns} turns, {tokens:,} tokens, {d.elapsed_seconds:.1f} s; chat `{d.child_session_id}`"
            )
        lines.append("")
    if context.workflow_runs:
        lines.append("**Workflows**:")
        for ran in context.workflow_runs:
            tokens = ran.usage.total
            ended = f"{ran.status}: {ran.error}" if ran.error else ran.status
            lines.append(
                f"- `{ran.workflow}`: {ended}; {ran.steps} step{'s' if ran.steps != 1 else ''}, {tokens:,} tokens, "
                f"{ran.elapsed_seconds:.1f} s; run `{ran.run_id}` (`contextdesk workflow show {ran.run_id}`)"
            )
        lines.append("")
    if context.samplings:
        lines.append("**Sampling requests** (tokens not counted in this reply's):")
        for asked in context.samplings:
            how = f" ({asked.approval})" if asked.approval else ""
            model = f" by `{asked.model}`" if asked.model else ""
            lines.append(
                f"- `{asked.server}` during `{asked.server}.{asked.tool}`: {asked.outcome}{how}{model}; "
                f"{_sampling_tokens(asked)}, {asked.elapsed_seconds:.1f} s"
                + (f"; {asked.note}" if asked.note else "")
            )
            lines.append(f"  - sent: “{' '.join(asked.prompt.split())[:300]}”")
            if asked.answer:
                lines.append(f"  - answer: “{' '.join(asked.answer.split())[:300]}”")
        lines.append("")
    if context.app_exchanges:
        lines.append("**Posted by tool UIs** (MCP Apps; shown to the user, not sent to the model):")
        for posted in context.app_exchanges:
            what = "message" if posted.kind == "message" else "context for the model"
            lines.append(f"- `{posted.server}.{posted.tool}` {what}: “{' '.join(posted.text.split())[:300]}”")
        lines.append("")
    if context.near_misses:
        misses = ", ".join(_near_miss(m) for m in context.near_misses)
        lines += [f"**Not included**: {misses}", ""]
    run = context.selection
    lines.append(
        f"Model `{context.model}`; selection {run.strategy} topK {run.top_k}, topN {run.top_n}, "
        f"includeScore {run.include_score} ({run.status}{': ' + run.detail if run.detail else ''})"
    )
    for topic, note in context.notes.topics():
        lines.append(f"Note ({topic}): {note}")
    usage = context.usage
    if usage.input_tokens is not None or usage.output_tokens is not None:
        source = (
            "estimated by ContextDesk (the reply stopped before the provider reported them)"
            if usage.estimated
            else "reported by the provider"
        )
        lines.append(f"Tokens {source}: {usage.input_tokens} in, {usage.output_tokens} out")
    elif usage.without_model:
        lines.append(
            f"No model was called: {without_model_words(context.provenance)}, so there are no tokens."
        )
    lines.append("")
    if context.manifest is not None:
        lines += describe_manifest(context.manifest)
    return lines


def describe_manifest(manifest: ContextManifest) -> list[str]:
    """The token breakdown of a request: each part, what was trimmed and why, the window used."""
    how = "exact" if manifest.exact else "estimated"
    lines = [
        f"**Context window**: {manifest.total_tokens:,} of {manifest.budget:,} tokens "
        f"({manifest.used_share:.0%}; window {manifest.window:,} from {manifest.window_source}, "
        f"{manifest.reply_reserve:,} kept for the reply; counts {how}, {manifest.counter})",
        "",
        "| part | name | tokens | detail |",
        "|---|---|---:|---|",
    ]
    for part in manifest_rows(manifest):
        lines.append(f"| {part.kind.replace('_', ' ')} | {part.name} | {part.tokens:,} | {part.detail} |")
    lines.append("")
    for action in manifest.trimmed:
        saved = f" (saved {action.tokens_saved:,} tokens)" if action.tokens_saved else ""
        lines.append(f"- trimmed: {action.detail}{saved}")
    if manifest.trimmed:
        lines.append("")
    return lines


def _sampling_tokens(asked: SamplingRecord) -> str:
    """Its output set against the output cap it was granted (the cap bounds output only), and
    its tokens in all: "output 60 of 100 tokens granted (189 in all)"."""
    usage, cap = asked.usage, f"{asked.max_tokens:,}"
    total = f" ({usage.total:,} in all)" if usage.input_tokens is not None else ""
    if usage.output_tokens is not None:
        return f"output {usage.output_tokens:,} of {cap} tokens granted{total}"
    told = f"{usage.total:,} tokens in all, " if usage.input_tokens is not None else "no tokens reported, "
    return f"{told}up to {cap} output tokens granted"


def _item(label: str, mode: str, score: float | None) -> str:
    return f"{label} [{mode.capitalize()}{'' if score is None else f' {score:.2f}'}]"


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def _drop_new_usage_fields(context: dict[str, Any]) -> None:
    """Token counts keep the v1 shape: the marks added since go where they say nothing."""
    usages = [context["usage"], *(run["usage"] for run in context.get("delegations", ()))]
    usages += [run["usage"] for run in context.get("workflow_runs", ())]
    usages += [asked["usage"] for asked in context.get("samplings", ())]
    for usage in usages:
        for mark in ("without_model", "estimated"):
            if not usage.get(mark):
                usage.pop(mark, None)


def _near_miss(miss: NearMiss) -> str:
    score = "not scored" if miss.score is None else f"{miss.score:.2f}"
    needed = "" if miss.needed is None else f", needed {miss.needed:.2f}"
    return f"{miss.ref.label()} ({score}, {miss.reason}{needed})"
