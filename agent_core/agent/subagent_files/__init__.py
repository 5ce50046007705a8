"""Sub-agents as the agent folder holds them: ``subagents/NAME.md`` (also Claude Code's agent
files), their header, their tool names, loading with located problems and checked saves.

What runs them (the delegation tool, the child chat) is ``agent_core.subagents``.
"""
