"""The documents of one view: the host page (a frame for the app, nothing else), the app's own
document with its CSP, and the relay script that carries postMessage JSON-RPC between the app's
frame and the chat.

The relay runs in Qt's application world, a JavaScript world of its own: the app's code (in the
page's main world, in a sandboxed frame) never sees the web channel, only ``window.parent``'s
postMessage.
"""

from __future__ import annotations

import html

from desktop.mcp_apps.sandbox_policy import HOST_SCHEME, ViewPolicy, iframe_allow

__all__ = [
    "APP_PATH",
    "HOST_PAGE_CSP",
    "HOST_PATH",
    "RELAY_OBJECT",
    "RELAY_SCRIPT",
    "VIEW_HOST",
    "app_url",
    "host_page",
    "host_url",
]

VIEW_HOST = "view"
HOST_PATH = "/host.html"
APP_PATH = "/app.html"
RELAY_OBJECT = "host"  # the name the relay finds the Python side under in the web channel
# The host page runs no script of its own (the relay is injected in its own world) and frames only
# the app's document.
HOST_PAGE_CSP = f"default-src 'none'; style-src 'unsafe-inline'; frame-src {HOST_SCHEME}:"
_MAX_PENDING = 64  # messages the relay keeps while the channel connects; more are dropped


def host_url() -> str:
    return f"{HOST_SCHEME}://{VIEW_HOST}{HOST_PATH}"


def app_url() -> str:
    return f"{HOST_SCHEME}://{VIEW_HOST}{APP_PATH}"


def host_page(policy: ViewPolicy) -> str:
    """The outer page: no script of its own, one sandboxed frame holding the app.

    ``sandbox="allow-scripts"`` without ``allow-same-origin`` gives the app an opaque origin: it
    cannot read this page, its storage or another view; without ``allow-top-navigation``,
    ``allow-popups`` or ``allow-forms`` it cannot navigate the page, open windows or submit forms.
    """
    allow = html.escape(iframe_allow(policy), quote=True)
    return f"""<!doctype html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{HOST_PAGE_CSP}">
<style>
html, body {{ margin: 0; padding: 0; background: transparent; overflow: hidden; }}
iframe {{ border: 0; width: 100%; height: 100vh; display: block; background: transparent; }}
</style></head>
<body><iframe id="app" title="MCP App" sandbox="allow-scripts" allow="{allow}"
 src="{html.escape(app_url(), quote=True)}"></iframe></body></html>
"""


RELAY_SCRIPT = f"""
(function () {{
  var pending = [];
  var relay = null;
  function appWindow() {{
    var frame = document.getElementById("app");
    return frame ? frame.contentWindow : null;
  }}
  window.addEventListener("message", function (event) {{
    var app = appWindow();
    if (!app || event.source !== app) return;  // only the app's own frame speaks for the app
    var text;
    try {{ text = JSON.stringify(event.data); }} catch (error) {{ return; }}
    if (typeof text !== "string") return;
    if (relay) relay.fromView(text);
    else if (pending.length < {_MAX_PENDING}) pending.push(text);
  }});
  new QWebChannel(qt.webChannelTransport, function (channel) {{
    relay = channel.objects.{RELAY_OBJECT};
    relay.toView.connect(function (text) {{
      var app = appWindow();
      // The app's origin is opaque ("null"): "*" is the only target that reaches it; the
      // message goes to this one frame's window, nowhere else.
      if (app) app.postMessage(JSON.parse(text), "*");
    }});
    pending.splice(0).forEach(function (text) {{ relay.fromView(text); }});
  }});
}})();
"""
