"""A real HTTP server on 127.0.0.1 that replays recorded API exchanges, so the real SDK code runs.

Replies are queued per test; every request is recorded (method, path, headers, JSON body).
SSE fixtures are files of events separated by blank lines, sent one chunk per event.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.paths import FIXTURES as TEST_FIXTURES

PROVIDER_FIXTURES = TEST_FIXTURES / "providers"


@dataclass
class Reply:
    status: int = 200
    json_body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    sse_events: list[bytes] | None = None
    drop_after: int | None = None  # close the connection mid-body after this many events
    hang: bool = False  # never answer (until the server stops): a timeout
    raw_body: bytes | None = None  # sent as is with content_type (a web page where an API should be)
    content_type: str = "application/json"


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


def sse_fixture(name: str) -> list[bytes]:
    """The events of an SSE fixture file, each with its blank-line terminator."""
    text = (PROVIDER_FIXTURES / name).read_text(encoding="utf-8")
    return [(event.strip("\n") + "\n\n").encode("utf-8") for event in text.split("\n\n") if event.strip()]


def json_fixture(name: str) -> Any:
    return json.loads((PROVIDER_FIXTURES / name).read_text(encoding="utf-8"))


class FakeApi:
    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self.stopping = threading.Event()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                api.handle(self)

            def do_POST(self) -> None:
                api.handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        headers = {name.lower(): value for name, value in handler.headers.items()}
        self.requests.append(Recorded(handler.command, handler.path, headers, body))
        reply = (
            self.replies.popleft() if self.replies else Reply(404, {"error": {"message": "no reply queued"}})
        )
        if reply.hang:
            self.stopping.wait(10)
            handler.close_connection = True
            return
        if reply.sse_events is None:
            data = (
                reply.raw_body if reply.raw_body is not None else json.dumps(reply.json_body).encode("utf-8")
            )
            handler.send_response(reply.status)
            handler.send_header("Content-Type", reply.content_type)
            handler.send_header("Content-Length", str(len(data)))
            for name, value in reply.headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(data)
            return
        handler.send_response(reply.status)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.send_header("Cache-Control", "no-cache")
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        for number, event in enumerate(reply.sse_events):
            if reply.drop_after is not None and number >= reply.drop_after:
                handler.wfile.flush()
                handler.close_connection = True
                return  # no terminating chunk: the client sees the body end early
            handler.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()

    def close(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()
