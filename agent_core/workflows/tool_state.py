"""A tool state: its MCP tool called with arguments rendered from the context store, asked about
first exactly as the chat asks (the chat's approval policy, the tools the chat allowed, what the
call acts on, the caution its server's annotations call for); the result is the state's output."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from agent_core.agent.workflow_files.schema import WorkflowState
from agent_core.agent.workflow_files.templates import render, render_all
from agent_core.chat.approvals import asks_every_call, asks_first, tool_approval
from agent_core.chat.events import ApprovalDecision, ApprovalRequest
from agent_core.context.items import ItemRef
from agent_core.context.provenance import Provenance, ToolUse
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.limits import Stopped
from agent_core.workflows.parsing import parse_output, pointed
from agent_core.workflows.workflow_run import WorkflowRun

__all__ = ["ToolAnswer", "call_tool", "tool_provenance"]


@dataclass(frozen=True)
class ToolAnswer:
    text: str
    arguments: Any  # as rendered from the store and sent
    tool: str = ""  # server.tool


async def call_tool(
    run: WorkflowRun, state: WorkflowState, store: Mapping[str, Any]
) -> AsyncIterator[ApprovalRequest | ToolAnswer]:
    """The approval asked for, when the policy asks, then the tool's answer.

    Raises:
        Stopped: the user did not allow the call.
        WorkflowError: no running server offers the tool, or it failed.
        WorkflowTemplateError: an argument or (``resolve_dynamic_values_in_response``) the
            response does not render.
    """
    config = next(t for t in run.spec.tools if t.id == state.tool_id)
    server, _, tool = config.tool.partition(".")
    args = {**(config.tool_args or {}), **(state.tool_args or {})}
    rendered = render_all(args, store, where=f"state '{state.id}', tool_args", undefined=run.spec.undefined)
    offered = run.services.tools.tools()
    descriptor = next((t for t in offered if t.server == server and t.name == tool), None)
    if descriptor is None:
        raise WorkflowError(f"state '{state.id}': no running server offers {config.tool}")
    ref = ItemRef("tool", tool, server)
    allowed = run.host.allowed_tools if run.host is not None else ()
    policy = run.agent.config.chat.tool_permission
    every_call = asks_every_call(run.agent.config, offered, server, tool)
    if not run.auto_approve and asks_first(
        ref, descriptor.permission_required, policy, allowed, every_call=every_call
    ):
        request = tool_approval(
            f"{run.run_id}-{state.id}", server, tool, rendered,
            agent=run.agent, tools=offered, origin=run.origin,
        )  # fmt: skip
        yield request
        decision = await request.wait()
        if decision is ApprovalDecision.DENY:
            raise Stopped(f"stopped: you did not allow {config.tool} in state '{state.id}'")
        if decision is ApprovalDecision.ALLOW_FOR_CHAT and run.host is not None and not every_call:
            run.host.allow_tool_for_chat(ref)
    outcome = await run.services.tools.call_tool(server, tool, rendered)
    if outcome.is_error:
        raise WorkflowError(f"state '{state.id}': {config.tool} failed: {outcome.text[:500]}")
    text = outcome.text
    if config.tool_result_json_pointer:
        picked = pointed(parse_output(text).value, config.tool_result_json_pointer)
        text = picked if isinstance(picked, str) else json.dumps(picked, ensure_ascii=False)
    if config.resolve_dynamic_values_in_response:
        # CodeMie's option: the tool's output is itself a template of the store. It renders in
        # the same sandbox; an undefined variable in it is an error like any other.
        text = render(text, store, where=f"state '{state.id}', tool response", undefined=run.spec.undefined)
    yield ToolAnswer(text, rendered, config.tool)


def tool_provenance(answer: ToolAnswer) -> Provenance:
    """A tool state's output: its tool's, by design, with the arguments it was called with."""
    arguments = answer.arguments if isinstance(answer.arguments, dict) else {"arguments": answer.arguments}
    return Provenance("tool", tools=(ToolUse(answer.tool, arguments),))
