"""Controllers: the desktop's non-widget objects that drive the core for the views.

A controller owns some core state or work (the open workspace, one chat's session, background
indexing, a local model's warm-up, the agent's files on disk) and runs it on the core thread
through the :class:`~desktop.bridge.CoreBridge`. It tells the GUI what happened with Qt signals and
draws nothing: views and dialogs bind to its signals and models and call its methods. Nothing here
is a QWidget, so each controller can be tested without a window.
"""
