"""Context items of a chat: what the session holds and what each request used."""
