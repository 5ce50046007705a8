"""View Context: what one reply used, in three columns (Rules | References | Tools), Skills when the
agent has skills (each as catalogue only / loaded / body inline, and the tokens selection saved), and
Memories when memories were recalled or considered (with Edit / Pin / Forget / Not for this chat).

Beyond the anchor design, each column lists the near-misses (agent items the selector considered
and left out, with their scores and why), and the top shows the model and selection settings and,
from the request's manifest, what each part cost in tokens and what was trimmed to fit.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListView,
    QPushButton,
    QScrollArea,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.agent import Agent
from agent_core.agent.items import DocumentItem
from agent_core.context.items import ItemRef, ItemType, RequestContext, TokenUsage
from agent_core.context.judged_short import judged_short_summary
from agent_core.context.provenance import Provenance, without_model_words
from agent_core.tools.runtime import ToolDescriptor
from desktop.dialogs.memory_row_actions import MemoryActions, MemoryRowActions
from desktop.dialogs.sampling_section import SamplingSection
from desktop.dialogs.subagent_section import SubagentHooks, SubagentSection
from desktop.dialogs.tool_call_section import ToolCallSection
from desktop.dialogs.workflow_section import OpenWorkflowRun, WorkflowSection
from desktop.models.context_items import ContextItemsModel, near_miss_rows, request_rows, sorted_proxy
from desktop.models.manifest import PartsColumn, PartsModel
from desktop.models.request_skills import involves_skills, skill_request_rows, skills_saved_line
from desktop.models.tool_outcomes import ToolCallOutcome
from desktop.theme import colors
from desktop.views.common import fit_list_height
from desktop.views.item_delegate import ContextItemDelegate
from desktop.views.token_bar import TokenSummary
from desktop.views.window_geometry import fit_size, keep_on_screen

__all__ = ["MEMORY_COLUMN", "ContextColumn", "ViewContextDialog", "describe_run", "tools_note", "usage_text"]

COLUMNS: tuple[tuple[str, ItemType], ...] = (
    ("Rules", "rule"),
    ("References", "reference"),
    ("Tools", "tool"),
)

# A fourth column, shown when a reply recalled memories or considered some.
MEMORY_COLUMN: tuple[str, ItemType] = ("Memories", "memory")
# Shown after References when the agent has skills or the request had some.
SKILL_COLUMN: tuple[str, ItemType] = ("Skills", "skill")
COLUMN_WIDTH = 240  # what the dialog grows by for each column past the first three


def _involves_memories(context: RequestContext) -> bool:
    return (
        bool(context.of_type("memory"))
        or any(m.ref.type == "memory" for m in context.near_misses)
        or bool(context.notes.memory)
    )


STATUS_TEXT = {
    "ok": "",
    "no_candidates": "no agent-mode items to choose from",
    "model_loading": "the embedding model was still loading, so no agent-mode items were chosen",
    "failed": "selection failed, so no agent-mode items were chosen",
    "disabled": "selection is off",
}


def describe_run(context: RequestContext) -> str:
    run = context.selection
    floor = ""
    if run.min_score is not None:  # the bar "needed" refers to under "Not included"
        floor = f"minScore {run.min_score:.2f}, "
        if run.question_floor:
            raised = run.min_score + run.question_floor
            floor = f"minScore {run.min_score:.2f} (+{run.question_floor:.2f} for a question: {raised:.2f}), "
    parts = [
        f"Model <b>{context.model}</b>",
        f"selection {run.strategy}: topK {run.top_k}, topN {run.top_n}, {floor}"
        f"includeScore {run.include_score:.2f}",
    ]
    if context.provenance is not None:  # tool arguments are the model's words: shown as text
        parts.insert(1, f"produced by {html.escape(context.provenance.line())}")
    if run.elapsed_ms is not None:
        parts.append(f"chosen in {run.elapsed_ms:.0f} ms")
    if short := judged_short_summary(run.description_only):
        parts.append(short)
    if tokens := usage_text(context.usage, context.provenance):
        parts.append(tokens)
    if context.samplings:
        spent = sum((r.usage.input_tokens or 0) + (r.usage.output_tokens or 0) for r in context.samplings)
        count = len(context.samplings)
        parts.append(f"{count} sampling request{'s' if count > 1 else ''} for tool servers, {spent:,} tokens")
    return " · ".join(parts)


def usage_text(usage: TokenUsage, provenance: Provenance | None = None) -> str:
    """The tokens a reply used, as reported; or, when none were, why (never a made-up 0): what
    happened instead of a model call, from ``provenance``."""
    if usage.input_tokens is None and usage.output_tokens is None:
        return (
            f"no model call, so no tokens: {without_model_words(provenance)}" if usage.without_model else ""
        )

    about = "~" if usage.estimated else ""

    def count(tokens: int | None) -> str:
        return "not reported" if tokens is None else f"{about}{tokens:,}"

    text = f"tokens {count(usage.input_tokens)} in, {count(usage.output_tokens)} out"
    if usage.cached_input_tokens:
        text += f" ({usage.cached_input_tokens:,} cached)"
    if usage.estimated:
        text += " (estimated: the reply stopped before the provider reported them)"
    return text


def tools_note(context: RequestContext) -> str:
    """Why the request has no tools, or only the one routed to (the core's note, and what to do)."""
    if routing := context.notes.tool_routing:
        return f"{routing.rstrip('.')}."
    note = context.notes.tools
    return f"{note.rstrip('.')}. Choose a tool-capable model in the model picker to use them." if note else ""


class _ItemList(QListView):
    """A list exactly as tall as its rows (up to a limit), so short columns leave no empty box."""

    def __init__(self, model: ContextItemsModel, *, misses: bool) -> None:
        super().__init__()
        self.proxy = sorted_proxy(model, self)
        self.setModel(self.proxy)
        self.setItemDelegate(ContextItemDelegate(self, show_miss_badge=misses))
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setUniformItemSizes(False)
        self.setMouseTracking(True)


class ContextColumn(QWidget):
    """One column: the items used, then what was not included."""

    def __init__(
        self,
        title: str,
        item_type: ItemType,
        context: RequestContext,
        agent: Agent | None,
        tools: Sequence[ToolDescriptor],
        parent: QWidget | None = None,
        attached: Mapping[ItemRef, DocumentItem] | None = None,
        memories: Mapping[str, str] | None = None,
        memory_actions: MemoryActions | None = None,
    ) -> None:
        super().__init__(parent)
        palette = colors()
        self.items_model = ContextItemsModel(
            skill_request_rows(context, agent)
            if item_type == "skill"
            else request_rows(context, item_type, agent, tools, attached, memories),
            self,
        )
        self.misses_model = ContextItemsModel(
            near_miss_rows(context.near_misses, item_type, agent, tools, memories), self
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        tokens = [row.tokens for row in self.items_model.rows() if row.tokens is not None]
        cost = f" · {sum(tokens):,} tokens" if tokens else ""
        self.title = QLabel(
            f"{title}  <span style='color:{palette.muted}'>{self.items_model.rowCount()}{cost}</span>"
        )
        self.title.setStyleSheet("font-size: 15px; font-weight: 600;")
        layout.addWidget(self.title)
        # Skills: what they cost against listing every skill's description, as other tools do.
        self.saved = QLabel(skills_saved_line(context) if item_type == "skill" else "")
        self.saved.setWordWrap(True)
        self.saved.setStyleSheet(f"color: {palette.muted};")
        self.saved.setVisible(bool(self.saved.text()))
        layout.addWidget(self.saved)
        # The core's note on this column, e.g. that the model cannot call tools so none were sent.
        self.note = QLabel(
            tools_note(context)
            if item_type == "tool"
            else context.notes.memory
            if item_type == "memory"
            else ""
        )
        self.note.setWordWrap(True)
        self.note.setStyleSheet(
            f"background-color: {palette.warning_background}; padding: 6px; border-radius: 6px;"
        )
        self.note.setVisible(bool(self.note.text()))
        layout.addWidget(self.note)
        self.items_view = _ItemList(self.items_model, misses=False)
        layout.addWidget(self.items_view)
        self.empty = QLabel(f"No {title.lower()} in this request.")
        self.empty.setStyleSheet(f"color: {palette.muted}; padding: 6px;")
        self.empty.setVisible(self.items_model.rowCount() == 0 and not self.note.text())
        layout.addWidget(self.empty)
        self.misses_title = QLabel(
            f"Not included  <span style='color:{palette.muted}'>{self.misses_model.rowCount()}</span>"
        )
        self.misses_title.setStyleSheet("font-weight: 600; margin-top: 8px;")
        self.misses_title.setToolTip("Agent-mode items the selector considered for this message and left out")
        layout.addWidget(self.misses_title)
        self.misses_view = _ItemList(self.misses_model, misses=True)
        layout.addWidget(self.misses_view)
        self.memory_actions: MemoryRowActions | None = None
        if item_type == "memory" and memory_actions is not None:
            self.memory_actions = MemoryRowActions(
                (self.items_view, self.misses_view), (self.items_model, self.misses_model), memory_actions
            )
            self.memory_actions.setVisible(self.items_model.rowCount() + self.misses_model.rowCount() > 0)
            layout.addWidget(self.memory_actions)
        layout.addStretch(1)
        has_misses = self.misses_model.rowCount() > 0
        self.misses_view.setVisible(has_misses)
        self.misses_title.setVisible(has_misses)
        self.items_view.setVisible(self.items_model.rowCount() > 0)
        fit_list_height(self.items_view, 10)
        fit_list_height(self.misses_view, 6)


class ViewContextDialog(QDialog):
    def __init__(
        self,
        context: RequestContext,
        agent: Agent | None,
        tools: Sequence[ToolDescriptor] = (),
        parent: QWidget | None = None,
        *,
        on_what_if: Callable[[], None] | None = None,
        on_exact_request: Callable[[], None] | None = None,
        attached: Mapping[ItemRef, DocumentItem] | None = None,
        memories: Mapping[str, str] | None = None,
        memory_actions: MemoryActions | None = None,
        subagents: SubagentHooks | None = None,
        open_workflow_run: OpenWorkflowRun | None = None,
        calls: Sequence[ToolCallOutcome] = (),
        heading: str = "What this reply used",
    ) -> None:
        """``on_exact_request`` shows what the reply sent (its button is hidden without it);
        ``attached`` are the chat's MCP resources, to describe those the reply used;
        ``memories`` the words of the memories it recalled (a Memories column shows them),
        ``memory_actions`` what its Edit / Pin / Forget / Not for this chat buttons do, and
        ``subagents`` where the sub-agents still running come from and how to open their chats,
        ``open_workflow_run`` how to open the run view of a workflow it ran,
        ``calls`` the tool calls it made and how each ended;
        ``heading`` names what made the request (a workflow step's dialog names the step)."""
        super().__init__(parent)
        self.context = context
        self.setWindowTitle("View Context")
        self.setModal(True)
        fit_size(self, QSize(1080, 620))
        palette = colors()
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 14, 16, 12)
        # Everything but the buttons scrolls: on a small screen the dialog keeps to the screen and
        # Close stays reachable, however many columns, near-misses and sections the reply has.
        self.body = QScrollArea()
        self.body.setWidgetResizable(True)
        self.body.setFrameShape(QFrame.Shape.NoFrame)
        content = QWidget()
        self.body.setWidget(content)
        outer.addWidget(self.body, 1)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        heading_label = QLabel(heading)
        heading_label.setStyleSheet("font-size: 17px; font-weight: 600;")
        layout.addWidget(heading_label)
        self.summary = QLabel(describe_run(context))
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setStyleSheet(f"color: {palette.muted};")
        layout.addWidget(self.summary)
        self.tokens = TokenSummary(context)
        layout.addWidget(self.tokens)
        self.parts_model = PartsModel(context.manifest, self)
        self.parts_toggle = QToolButton()
        self.parts_toggle.setText("Every part of the request")
        self.parts_toggle.setCheckable(True)
        self.parts_toggle.setAutoRaise(True)
        self.parts_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.parts_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.parts_toggle.setVisible(context.manifest is not None)
        self.parts_table = QTableView()
        self.parts_table.setModel(self.parts_model)
        self.parts_table.verticalHeader().hide()
        self.parts_table.setShowGrid(False)
        self.parts_table.setMaximumHeight(180)
        header = self.parts_table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(PartsColumn.DETAIL, QHeaderView.ResizeMode.Stretch)
        self.parts_table.hide()
        self.parts_toggle.toggled.connect(self._show_parts)
        layout.addWidget(self.parts_toggle)
        layout.addWidget(self.parts_table)
        status = STATUS_TEXT.get(context.selection.status, context.selection.status)
        self.status = QLabel(
            f"Note: {status}" + (f" ({context.selection.detail})" if context.selection.detail else "")
        )
        self.status.setWordWrap(True)
        self.status.setStyleSheet(
            f"background-color: {palette.warning_background}; padding: 6px; border-radius: 6px;"
        )
        self.status.setVisible(bool(status) and context.selection.status != "no_candidates")
        layout.addWidget(self.status)
        columns = QHBoxLayout()
        columns.setSpacing(16)
        self.columns: dict[ItemType, ContextColumn] = {}
        shown = [*COLUMNS[:2], *([SKILL_COLUMN] if involves_skills(context) else []), *COLUMNS[2:]]
        if _involves_memories(context):
            shown.append(MEMORY_COLUMN)
        if len(shown) > len(COLUMNS):
            fit_size(self, QSize(1080 + COLUMN_WIDTH * (len(shown) - len(COLUMNS)), 620))
        for title, item_type in shown:
            column = ContextColumn(
                title,
                item_type,
                context,
                agent,
                tools,
                attached=attached,
                memories=memories,
                memory_actions=memory_actions,
            )
            self.columns[item_type] = column
            columns.addWidget(column, 1)
        layout.addLayout(columns, 1)
        self.subagents = SubagentSection(context, subagents)
        self.subagents.setVisible(self.subagents.model.rowCount() > 0)
        layout.addWidget(self.subagents)
        self.tool_calls = ToolCallSection(calls)
        self.tool_calls.setVisible(bool(calls))
        layout.addWidget(self.tool_calls)
        self.samplings = SamplingSection(context)
        self.samplings.setVisible(bool(context.samplings))
        layout.addWidget(self.samplings)
        self.workflows = WorkflowSection(context, open_workflow_run)
        self.workflows.setVisible(bool(context.workflow_runs))
        layout.addWidget(self.workflows)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.what_if_button = QPushButton("What if…")
        self.what_if_button.setToolTip(
            "Try other selection settings or toggle items, and compare with this reply before resending"
        )
        buttons.addButton(self.what_if_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.what_if_button.setVisible(on_what_if is not None)  # after addButton, which shows it
        if on_what_if is not None:
            self.what_if_button.clicked.connect(lambda: on_what_if())
        self.exact_request_button = QPushButton("Show exact request")
        self.exact_request_button.setToolTip(
            "The exact messages and tool definitions sent to the provider for this reply, credentials masked"
        )
        buttons.addButton(self.exact_request_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.exact_request_button.setVisible(on_exact_request is not None)
        if on_exact_request is not None:
            self.exact_request_button.clicked.connect(lambda: on_exact_request())
        outer.addWidget(buttons)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        keep_on_screen(self)  # its frame is known only now: pulled inside the screen it opened on

    def _show_parts(self, shown: bool) -> None:
        self.parts_toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self.parts_table.setVisible(shown)
