"""Model providers behind one small interface; built-ins register like third-party ones."""
