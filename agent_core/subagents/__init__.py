"""Sub-agents: delegation to a child chat with scoped, isolated context (docs/subagents.md)."""
