"""The chat engine: sessions that build their context, call a model, run tools and record it all."""
