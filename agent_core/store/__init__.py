"""Saved chats in SQLite."""
