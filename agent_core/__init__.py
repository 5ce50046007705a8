"""ContextDesk's Qt-free core: agents, sessions, providers, MCP, storage, context budgets."""

__version__ = "0.1.0"
