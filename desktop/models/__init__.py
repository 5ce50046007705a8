"""Qt item models over the core's values; each is tested without any view."""
