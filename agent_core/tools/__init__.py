"""What a chat can call, whoever serves it: the tools' runtime (descriptors, outcomes), their hints
and their progress; and running a skill's script in a sandbox.

Below the context, the MCP clients and the chat: it imports none of them, so all of them can use it.
"""
