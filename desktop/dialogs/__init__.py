"""Dialogs: View Context, editors and forms opened from the main window."""
