"""What a chat can call, whoever serves it: the tools' runtime, their hints and progress, and the
router that hands a tool server's sampling requests to the chat whose call is running.

Below the chat and the MCP clients: it imports neither, so both (and the context) can use it.
"""
