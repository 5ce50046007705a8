"""The PySide6 desktop app: the only package that imports Qt. Start it with :func:`desktop.app.main`."""
