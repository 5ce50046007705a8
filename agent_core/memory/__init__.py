"""Long-term memories: facts about the user and their work that outlive a chat, written only with
consent and provenance, recalled per message with the reason, and always visible and editable."""
