"""Widgets: thin views that bind the item models to the screen and forward user actions."""
