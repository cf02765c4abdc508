"""A real HTTP server on 127.0.0.1 speaking /v1/chat/completions with scripted replies, for judge
tests through the real openai client. Each request pops the next step of the script."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion(
    content: str, prompt_tokens: int = 100, completion_tokens: int = 20
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "judge",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class ScriptedOpenAIServer:
    """Steps: ("reply", content) | ("status", code[, message]) | ("sleep", seconds, content) | ("raw", bytes).
    When the script runs out, `default` (a callable of the request body) answers."""

    def __init__(self, default: Any = None) -> None:
        self.script: deque[tuple] = deque()
        self.requests: list[dict[str, Any]] = []
        self.default = default
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                with server.lock:
                    server.requests.append(body)
                    step = server.script.popleft() if server.script else None
                if step is None:
                    content = server.default(body) if server.default else "{}"
                    step = ("reply", content)
                kind = step[0]
                if kind == "status":
                    message = step[2] if len(step) > 2 else "scripted"
                    error = {"error": {"message": message, "type": "test", "code": None}}
                    self._send(step[1], json.dumps(error).encode(), {"retry-after-ms": "10"})
                elif kind == "sleep":
                    time.sleep(step[1])
                    self._send(200, json.dumps(completion(step[2])).encode())
                elif kind == "raw":
                    self._send(200, step[1])
                else:
                    self._send(200, json.dumps(completion(step[1])).encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedOpenAIServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
