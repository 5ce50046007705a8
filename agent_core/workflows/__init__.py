"""Workflows: multi-step runs over a shared context store, in CodeMie's format (docs/workflows.md)."""
