"""A real local HTTP server speaking the chat-completions protocol, with scripted answers.

Each request takes the next answer from ``script``: ``("content", text)`` a normal completion
whose message is ``text``; ``("status", 500)`` an HTTP error; ``("hang", None)`` no answer until
the server closes (the client times out); ``("raw", bytes)`` a body that is not a completion;
``("stream", (chunk, pause))`` a completion that never ends: ``chunk`` every ``pause`` seconds.
``("tool_call", (name, arguments))`` an assistant message that calls the tool ``name`` with the
``arguments`` object. A request with ``"stream": true`` gets its answer as server-sent events (one
chunk, then the finish chunk and ``[DONE]``), as an OpenAI-compatible server streams. Only
``.../chat/completions`` takes from the script; any other path (an agent probing for an Ollama
``/api/show``, say) gets 404 and leaves the script alone.
An exhausted script answers 500, so a test that makes an unexpected call notices.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _message(kind: str, value: Any) -> dict[str, Any]:
    """The assistant message a scripted ``content`` or ``tool_call`` answer stands for."""
    if kind == "tool_call":
        name, arguments = value
        return {"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments)}}]}
    return {"role": "assistant", "content": value}


class ScriptedLLM:
    def __init__(self) -> None:
        self.script: list[tuple[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.release = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self.send_error(404)
                    return
                kind, value = owner.script.pop(0) if owner.script else ("status", 500)
                if kind == "hang":
                    owner.release.wait(30)
                    kind, value = "status", 503
                try:
                    if kind == "stream":  # (chunk, pause): an answer that never ends, without Content-Length
                        chunk, pause = value
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.end_headers()
                        self.wfile.write(b'{"choices": [{"message": {"content": "')
                        while not owner.release.wait(pause):
                            self.wfile.write(chunk)
                        return
                    if kind == "status":
                        self.send_error(value)
                        return
                    if kind == "tool_call" or (kind == "content" and body.get("stream")):
                        message = _message(kind, value)
                        if body.get("stream"):
                            self._stream(body, message)
                            return
                        value, kind = message, "message"
                    if kind == "message":
                        payload = json.dumps({"id": "x", "object": "chat.completion", "model": body.get("model"),
                                              "choices": [{"index": 0, "message": value, "finish_reason":
                                                           "tool_calls" if value.get("tool_calls") else "stop"}]}
                                             ).encode()
                        kind = "raw"
                    payload = value if kind == "raw" else json.dumps(
                        {"id": "x", "object": "chat.completion", "model": body.get("model"),
                         "choices": [{"index": 0, "message": {"role": "assistant", "content": value},
                                      "finish_reason": "stop"}]}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout): nothing to answer to

            def _stream(self, body: dict[str, Any], message: dict[str, Any]) -> None:
                delta = {k: v for k, v in message.items() if v is not None}
                finish = "tool_calls" if message.get("tool_calls") else "stop"
                chunks = [{"index": 0, "delta": delta, "finish_reason": None},
                          {"index": 0, "delta": {}, "finish_reason": finish}]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                for choice in chunks:
                    event = {"id": "x", "object": "chat.completion.chunk", "model": body.get("model"),
                             "choices": [choice]}
                    self.wfile.write(b"data: " + json.dumps(event).encode() + b"\n\n")
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = False  # server_close() joins the handler threads: none leaks
        self.thread = threading.Thread(target=self.server.serve_forever, name="scripted-llm")
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, *entries: tuple[str, Any]) -> None:
        self.script.extend(entries)

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
