"""MCP Apps in the chat: a tool's UI resource shown in a sandboxed Qt WebEngine view (needs the
``apps`` extra; without it, :mod:`desktop.mcp_apps.engine` says so)."""
