"""Whether a tool call needs the user's approval before it runs.

The chat's policy decides first (``allow``: never ask, ``ask``: always ask); under the default
``tool`` policy each tool's own ``permissionRequired`` setting does. A tool the user allowed
"for this chat" is not asked about again in that chat.
"""

from __future__ import annotations

from collections.abc import Collection

from agent_core.agent.schema import ToolPermissionPolicy
from agent_core.chat.prompt import ToolBinding
from agent_core.context.items import ItemRef

__all__ = ["needs_approval", "tool_ref"]


def tool_ref(binding: ToolBinding) -> ItemRef:
    return ItemRef("tool", binding.tool, binding.server)


def needs_approval(
    binding: ToolBinding, policy: ToolPermissionPolicy, allowed_for_chat: Collection[ItemRef]
) -> bool:
    if tool_ref(binding) in allowed_for_chat:
        return False
    if policy is ToolPermissionPolicy.ALLOW:
        return False
    if policy is ToolPermissionPolicy.ASK:
        return True
    return binding.permission_required
