"""An optional OpenAI-compatible chat client (DESIGN §9), and strict JSON answers.

Off unless ``[llm] base_url`` and ``model`` are set. Every call is
temperature 0. Any failure (connection, timeout, HTTP error, an answer that
is not the JSON asked for) raises ``LLMError`` and is counted; callers then
take their no-LLM path, so a bad answer never reaches the store.

The client uses the standard library's ``urllib``: one blocking POST per
call is all it needs, and it adds no dependency to the engine.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
import urllib.error
import urllib.request
from collections import Counter
from typing import Any

from engine.config import LLMSettings
from engine.errors import MemLensError

_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\s*\n(.*?)\n?```$", re.DOTALL)
MAX_ANSWER_BYTES = 1_000_000


def _read_bounded(response: Any, timeout: float) -> bytes:
    """The reply's body, refused past ``MAX_ANSWER_BYTES`` (a huge or endless answer is never held
    whole) or when it is not complete ``timeout`` s after it started (the socket timeout alone lets
    a server that trickles a byte now and then hold a call for ever)."""
    deadline = time.monotonic() + timeout
    parts, size = [], 0
    while chunk := response.read1(65536):
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise LLMError("bad_response", f"the reply is larger than {MAX_ANSWER_BYTES:,} bytes")
        if time.monotonic() > deadline:
            raise LLMError("timeout", f"the reply did not finish within {timeout:g} s of starting")
        parts.append(chunk)
    return b"".join(parts)


class LLMError(MemLensError):
    """The LLM could not be asked, or its answer was unusable; ``kind`` says which, for the counters."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(f"LLM {kind}: {message}")


def parse_json(answer: str) -> Any:
    """The JSON value of an answer: the whole answer, or one fenced block that is the whole answer.

    Prose around the JSON is rejected, not searched: a model that chats instead of answering
    has not followed the instruction, and guessing which braces were meant is how garbage
    gets stored.
    """
    text = answer.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        # An answer that opens a JSON value and never closes it was cut off (max_tokens, a dropped stream).
        opened = text[:1] in ("[", "{")
        kind = "truncated" if opened and not text.endswith({"[": "]", "{": "}"}[text[0]]) else "not_json"
        raise LLMError(kind, f"the answer is not the JSON asked for ({err.msg} at {err.pos})") from None


class LLMClient:
    """Chat completions against one configured endpoint; ``stats`` counts calls and failures by kind."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self.stats: Counter[str] = Counter()

    @property
    def configured(self) -> bool:
        return bool(self.settings.base_url and self.settings.model)

    def _request(self, messages: list[dict[str, str]], max_tokens: int) -> urllib.request.Request:
        body = {"model": self.settings.model, "messages": messages, "temperature": 0, "max_tokens": max_tokens}
        headers = {"Content-Type": "application/json"}
        if self.settings.api_key_env:
            key = os.environ.get(self.settings.api_key_env)
            if not key:
                raise LLMError("config", f"environment variable {self.settings.api_key_env} is not set")
            headers["Authorization"] = f"Bearer {key}"
        url = self.settings.base_url.rstrip("/") + "/chat/completions"
        return urllib.request.Request(url, json.dumps(body).encode("utf-8"), headers, method="POST")

    def chat(self, system: str, user: str, max_tokens: int = 512) -> str:
        """The assistant's text for one system + user message; raises ``LLMError``."""
        if not self.configured:
            raise LLMError("off", "no [llm] base_url and model configured")
        self.stats["calls"] += 1
        try:
            text = self._post(self._request([{"role": "system", "content": system},
                                             {"role": "user", "content": user}], max_tokens))
        except LLMError as err:
            self.stats[err.kind] += 1
            raise
        self.stats["answered"] += 1
        return text

    def _post(self, request: urllib.request.Request) -> str:
        try:
            with urllib.request.urlopen(request, timeout=self.settings.timeout) as response:
                raw = _read_bounded(response, self.settings.timeout)
        except urllib.error.HTTPError as err:
            raise LLMError("http_error", f"{request.full_url} answered HTTP {err.code}") from None
        except (TimeoutError, socket.timeout):
            raise LLMError("timeout", f"no answer within {self.settings.timeout:g} s") from None
        except urllib.error.URLError as err:
            if isinstance(err.reason, (TimeoutError, socket.timeout)):
                raise LLMError("timeout", f"no answer within {self.settings.timeout:g} s") from None
            raise LLMError("unreachable", f"cannot reach {self.settings.base_url}: {err.reason}") from None
        except OSError as err:
            raise LLMError("unreachable", f"cannot reach {self.settings.base_url}: {err}") from None
        try:
            content = json.loads(raw)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError("bad_response", "the reply is not a chat completion") from None
        if not isinstance(content, str):
            raise LLMError("bad_response", "the reply has no text content")
        return content

    def ask_json(self, system: str, user: str, max_tokens: int = 512) -> Any:
        """``chat`` then ``parse_json``; an unusable answer is counted by its kind."""
        answer = self.chat(system, user, max_tokens)
        try:
            return parse_json(answer)
        except LLMError as err:
            self.stats[err.kind] += 1
            raise
