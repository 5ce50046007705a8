"""The ``contextdesk`` command line: a front end on the same core as the desktop app."""
