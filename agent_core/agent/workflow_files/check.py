"""``contextdesk workflow check``: what is wrong with a workflow before anything runs.

Unknown states, assistants and tools; states no path reaches; loops with no way to the end; parallel writes to one key without
a ``merge`` rule; CodeMie features ContextDesk does not run; and variables a template reads that
nothing defines: not an input, and not stored by any state that can run before (its
``output_key``, the properties of its ``output_schema``, or the keys of the JSON its task asks
for). When an earlier state's output keys cannot be known, such a variable is a warning.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from agent_core.agent.items import Problem
from agent_core.agent.workflow_files._loops import endless_loops
from agent_core.agent.workflow_files.autonomous_check import autonomous_problems
from agent_core.agent.workflow_files.loader import Workflow
from agent_core.agent.workflow_files.schema import WorkflowAssistantConfig, WorkflowNext, WorkflowState
from agent_core.agent.workflow_files.templates import WorkflowTemplateError, private_attributes, variables_of

__all__ = ["END", "check_workflow", "output_keys", "targets"]

END = "end"

# A task that asks for JSON usually shows it: {"summary": "...", "key_findings": [...]}
_JSON_KEY = re.compile(r'["\']([A-Za-z_][\w-]*)["\']\s*:')

_AFTER_OUTPUT = frozenset(["condition", "switch", "iter_key"])

#: Where in a state each place a variable is read from is written (for the problem's line).
_PLACE_KEYS: dict[str, tuple[str, ...]] = {
    "task": ("task",),
    "tool_args": ("tool_args",),
    "condition": ("next", "condition", "expression"),
    "switch": ("next", "switch"),
    "iter_key": ("next", "iter_key"),
}
_IGNORED_ON_TOOLS = ("input_key", "integration_alias", "mcp_server", "trace", "tokens_size_limit")
_IGNORED = {
    "enable_summarization_node": "summarization nodes (ContextDesk compacts history its own way)",
    "messages_limit_before_summarization": "summarization limits",
    "tokens_limit_before_summarization": "summarization limits (use limits.maxTokens)",
    "recursion_limit": "recursion_limit (use limits.maxSteps)",
    "max_concurrency": "max_concurrency (use parallel on a state)",
    "retry_policy": "retry_policy (provider errors are retried by the provider layer)",
}


def targets(next_: WorkflowNext) -> list[str]:
    """The states a transition can lead to."""
    if next_.state_id is not None:
        return [next_.state_id]
    if next_.state_ids is not None:
        return list(next_.state_ids)
    if next_.condition is not None:
        return [next_.condition.then, next_.condition.otherwise]
    if next_.switch is not None:
        return [case.state_id for case in next_.switch.cases] + [next_.switch.default]
    return []


def output_keys(state: WorkflowState) -> set[str] | None:
    """The keys ``state`` can store, or None when they cannot be known before it runs."""
    next_ = state.next
    if not next_.store_in_context:
        return set()
    # With output_key, the whole output is stored under it, and an object's keys as well.
    keyed = {next_.output_key} if next_.output_key else set()
    schema = state.output_schema
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except ValueError:
            schema = None
    if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
        return keyed | set(schema["properties"])
    asked = set(_JSON_KEY.findall(state.task))
    return (keyed | asked) or None


def check_workflow(
    workflow: Workflow,
    *,
    subagents: Collection[str] = (),
    tools: Collection[str] | None = None,
    agent_servers: Mapping[str, str] | None = None,
) -> list[Problem]:
    """Problems of ``workflow``; ``subagents`` are the agent's sub-agent names, ``tools`` the
    ``server.tool`` names of its running servers (None: not known, tools are not checked),
    ``agent_servers`` its agent.yaml servers' types by name (None: not known)."""
    spec, path = workflow.spec, workflow.path
    problems: list[Problem] = []

    def add(message: str, fix: str, *where: str | int, severity: str = "error") -> None:
        problems.append(Problem(path, message, fix, workflow.line_of(*where), severity))  # type: ignore[arg-type]

    states = {state.id: state for state in spec.states}
    index = {state.id: i for i, state in enumerate(spec.states)}
    assistants = {a.id: a for a in spec.assistants}
    tool_ids = {t.id: t for t in spec.tools}
    if spec.mode and spec.mode.strip().lower() not in ("sequential", "autonomous"):
        add(
            f"mode {spec.mode} is not supported: ContextDesk runs Sequential and Autonomous workflows",
            "remove mode (Sequential), or write Autonomous",
            "mode",
        )
    for key, what in _IGNORED.items():
        if getattr(spec, key) is not None:
            add(f"{what} is ignored", f"remove {key}", key, severity="warning")
    for tool in spec.tools:
        position = list(tool_ids).index(tool.id)
        tool_where: tuple[str | int, ...] = ("tools", position, "tool")
        for key in _IGNORED_ON_TOOLS:
            if getattr(tool, key):
                add(
                    f"tool '{tool.id}': {key} is ignored",
                    f"remove {key}; the tool runs on this agent's own server",
                    "tools", position, key,
                    severity="warning",
                )  # fmt: skip
        if "." not in tool.tool:
            add(
                f"tool '{tool.id}' names {tool.tool!r}, not a tool of this agent",
                "name it as server.tool, e.g. workspace.read_file (`contextdesk agent show` lists them)",
                *tool_where,
            )
        elif tools is not None and tool.tool not in tools:
            add(
                f"tool '{tool.id}': no running server offers {tool.tool}",
                "check the server's name and the tool's",
                *tool_where,
                severity="warning",
            )
    for i, assistant in enumerate(spec.assistants):
        if assistant.assistant_id and assistant.assistant_id not in subagents:
            add(
                f"assistant '{assistant.id}' is {assistant.assistant_id!r}, which is not a sub-agent of this agent",
                "add subagents/NAME.md, or remove assistant_id to use this agent",
                "assistants", i, "assistant_id",
            )  # fmt: skip
        for j, server in enumerate(assistant.mcp_servers):
            found = agent_servers.get(server.name) if agent_servers is not None else None
            if server.config.command is None and agent_servers is not None and found != "stdio":
                add(
                    f"assistant '{assistant.id}': the MCP server '{server.name}' gives no command, and "
                    "the agent has no stdio server of that name",
                    "give config.command, or name one of agent.yaml's servers",
                    "assistants", i, "mcp_servers", j, "name",
                )  # fmt: skip
        for key in ("datasource_ids", "skill_ids"):
            if getattr(assistant, key):
                add(
                    f"assistant '{assistant.id}': {key} is ignored",
                    "give tools through server.tool",
                    "assistants",
                    i,
                    key,
                    severity="warning",
                )
    if spec.autonomous:
        autonomous_problems(workflow, add)
        return problems

    for i, state in enumerate(spec.states):
        where = ("states", i)
        if state.custom_node_id:
            add(
                f"state '{state.id}' is a custom node, which ContextDesk does not run",
                "make it an assistant or a tool state",
                *where,
                "custom_node_id",
            )
        if (
            state.assistant_id
            and state.assistant_id not in assistants
            and state.assistant_id not in subagents
        ):
            add(
                f"state '{state.id}' names assistant '{state.assistant_id}', which the workflow does not define",
                f"add it to assistants (defined: {', '.join(assistants) or 'none'})",
                *where, "assistant_id",
            )  # fmt: skip
        if state.tool_id and state.tool_id not in tool_ids:
            add(
                f"state '{state.id}' names tool '{state.tool_id}', which the workflow does not define",
                f"add it to tools (defined: {', '.join(tool_ids) or 'none'})",
                *where, "tool_id",
            )  # fmt: skip
        for target in targets(state.next):
            if target != END and target not in states:
                add(
                    f"state '{state.id}' goes to '{target}', which is not a state",
                    f"use one of: {', '.join(states)}, end",
                    *where,
                    "next",
                )
        for text, place, expression in _templates(state):
            for name, line in private_attributes(text, expression=expression):
                add(
                    f"state '{state.id}', {place}, line {line}: the template uses a private attribute "
                    f"'{name}', which is refused when it runs",
                    "remove it: templates read the context store's values, their keys and items",
                    *where, *_PLACE_KEYS.get(place, ()),
                )  # fmt: skip
        if state.parallel and state.parallel > 1 and state.merge is None:
            add(
                f"state '{state.id}' runs {state.parallel} at a time but says nothing of how their outputs merge",
                "add merge: append, last or error",
                *where, "parallel",
            )  # fmt: skip
        if state.next.state_ids:
            _parallel_writes(state, states, add, where)
        for key in ("include_in_iterator_context", "append_to_context", "override_task"):
            value = getattr(state.next, key)
            if value not in (["*"], False):
                add(
                    f"state '{state.id}': next.{key} is not supported yet and is ignored",
                    f"remove {key}",
                    *where,
                    "next",
                    key,
                    severity="warning",
                )
    _unreachable(spec.states, states, add)
    if stuck := endless_loops(spec.states, targets, END):
        lines = {state_id: workflow.line_of("states", index[state_id]) for state_id in stuck}
        names = ", ".join(f"'{s}'" + (f" (line {lines[s]})" if lines[s] else "") for s in stuck)
        add(
            f"{'state' if len(stuck) == 1 else 'states'} {names} loop without an end: no path from "
            f"{'it' if len(stuck) == 1 else 'them'} leads to end, so a run that gets there goes round "
            "until limits.maxSteps stops it",
            "give one of them a way out: a condition or switch with end (or a state leading to end) as one of its targets",
            "states", index[stuck[0]], "next",
        )  # fmt: skip
    _variables(workflow, states, index, add)
    return problems


def _parallel_writes(
    state: WorkflowState, states: Mapping[str, WorkflowState], add: Any, where: tuple[Any, ...]
) -> None:
    seen: dict[str, str] = {}
    for target in state.next.state_ids or []:
        branch = states.get(target)
        if branch is None:
            continue
        for key in output_keys(branch) or set():
            if key in seen and branch.merge is None and states[seen[key]].merge is None:
                add(
                    f"parallel states '{seen[key]}' and '{target}' both write '{key}'",
                    "add merge: append, last or error to one of them, or use another output_key",
                    *where, "next", "state_ids",
                )  # fmt: skip
            seen.setdefault(key, target)


def _unreachable(order: list[WorkflowState], states: Mapping[str, WorkflowState], add: Any) -> None:
    reached, queue = {order[0].id}, deque([order[0].id])
    while queue:
        for target in targets(states[queue.popleft()].next):
            if target in states and target not in reached:
                reached.add(target)
                queue.append(target)
    for i, state in enumerate(order):
        if state.id not in reached:
            add(
                f"state '{state.id}' can never run: no path from the first state leads to it",
                "point a next at it, or remove it",
                "states",
                i,
                severity="warning",
            )


def _variables(
    workflow: Workflow, states: Mapping[str, WorkflowState], index: Mapping[str, int], add: Any
) -> None:
    """Variables read before anything can have stored them."""
    spec = workflow.spec
    first = spec.states[0].id
    # What is surely known when each state runs, going through the states in the order they
    # can run: the inputs, then what every state before it stores (on the shortest path).
    known: dict[str, set[str]] = {first: set(spec.inputs)}
    certain: dict[str, bool] = {first: True}
    iterated: set[str] = set()
    queue = deque([first])
    visited: set[str] = set()
    while queue:
        current = queue.popleft()
        if current in visited:
            continue
        visited.add(current)
        state = states[current]
        stored = output_keys(state)
        after = known[current] | (stored or set())
        if state.next.clear_context_store is True:
            after = set()
        elif state.next.clear_context_store == "keep_current":
            after = set(stored or set())
        after -= set(state.next.reset_keys_in_context_store or [])
        for target in targets(state.next):
            if target not in states:
                continue
            if state.next.iter_key:
                iterated.add(target)
            if target not in known:
                known[target] = set(after)
                certain[target] = certain[current] and stored is not None
                queue.append(target)
    for state_id, state in states.items():
        if state_id not in known:
            continue  # unreachable: reported already
        where: tuple[str | int, ...] = ("states", index[state_id])
        assistant = next((a for a in spec.assistants if a.id == state.assistant_id), None)
        used = _used(state, assistant)
        # A transition's condition and iter_key read the store with this state's output in it.
        own = output_keys(state) or set()
        for variable, place in sorted(used):
            if variable in known[state_id] or (place in _AFTER_OUTPUT and variable in own):
                continue
            # With undefined: keep it renders as the literal {{name}} (CodeMie's way): a warning.
            maybe = not certain[state_id] or state_id in iterated or spec.undefined == "keep"
            if spec.undefined == "keep" and certain[state_id] and state_id not in iterated:
                message = (
                    f"state '{state_id}', {place}: '{variable}' is never stored before; with "
                    "undefined: keep it is sent as the literal text"
                )
            elif maybe:
                message = (
                    f"state '{state_id}', {place}: '{variable}' may be undefined "
                    "(an earlier state's output keys are not known)"
                )
            else:
                message = (
                    f"state '{state_id}', {place}: '{variable}' is undefined (inputs and earlier states store: "
                    f"{', '.join(sorted(known[state_id])) or 'nothing'})"
                )
            precise: tuple[str | int, ...] = (*where, *_PLACE_KEYS.get(place, ()))
            add(
                message,
                "declare it in inputs, store it in an earlier state (output_key or output_schema), or fix its name",
                *(precise if workflow.line_of(*precise) is not None else where),
                severity="warning" if maybe else "error",
            )


def _used(state: WorkflowState, assistant: WorkflowAssistantConfig | None) -> set[tuple[str, str]]:
    used: set[tuple[str, str]] = set()

    def collect(text: str, place: str, *, expression: bool = False) -> None:
        try:
            used.update((name, place) for name in variables_of(text, expression=expression))
        except WorkflowTemplateError:
            return  # a syntax error: reported when the state renders (with its line)

    if state.resolve_dynamic_values_in_prompt:
        collect(state.task, "task")
    for value in _strings(state.tool_args or {}):
        collect(value, "tool_args")
    if state.next.condition is not None:
        collect(state.next.condition.expression, "condition", expression=True)
    for case in state.next.switch.cases if state.next.switch else []:
        collect(case.condition, "switch", expression=True)
    if state.next.iter_key:
        used.add((state.next.iter_key.split(".")[0], "iter_key"))
    for server in assistant.mcp_servers if assistant is not None else []:
        if server.resolve_dynamic_values_in_arguments:
            for value in [*(server.config.args or []), *server.config.env.values()]:
                collect(value, f"MCP server '{server.name}' arguments")
    return used


def _templates(state: WorkflowState) -> Iterable[tuple[str, str, bool]]:
    """The state's templates and conditions: (text, where it is, whether it is an expression)."""
    yield state.task, "task", False
    for value in _strings(state.tool_args or {}):
        yield value, "tool_args", False
    if state.next.condition is not None:
        yield state.next.condition.expression, "condition", True
    for case in state.next.switch.cases if state.next.switch else []:
        yield case.condition, "switch", True


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
