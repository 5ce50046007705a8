"""The app's SQLite database, one file for chats, memories, workflow runs and what selection
learned: its connection and migrations, its errors worded per cause, and the base every store on
it builds on (one lock per file in a process)."""
