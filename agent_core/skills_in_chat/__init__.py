"""Skills in a chat: the bodies and catalogue lines a request carries, and a ``skills.load`` that
keeps its skill in the chat; plugged into the chat as a kind of context item (``kind.py``)."""
