"""Context-window management: counting tokens, fitting requests into the window, compaction."""
