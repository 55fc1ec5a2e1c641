"""Provider faults: what to retry, how long to wait, what to tell the user.

Pure decisions (classify, backoff) plus one exception type per outcome the
REPL treats differently. No SDK is imported here: an exception of the openai SDK or of httpx
can only exist once that library is loaded, so the checks look it up in sys.modules (the
command line, the config and the error report import this module before any SDK).
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Literal, TypeVar

if TYPE_CHECKING:
    import httpx

MAX_TRIES = 3
BASE_DELAY = 1.0
MAX_DELAY = 20.0
CONTEXT_CODES = ("40003",)  # CLOVA Studio: input exceeds the model's context
EMPTY_STREAM = "No generations found in stream"  # langchain_core: a stream with no chunk at all
CONTEXT_WORDS = ("context length", "context_length", "maximum context", "context size", "too many tokens", "토큰 수")

T = TypeVar("T")
Kind = Literal["retry", "auth", "context", "fatal"]


class AuthError(Exception):
    """The endpoint rejected the key (401/403): exit 2, never retried."""


class IncompleteResponse(Exception):
    """The stream ended without a finish reason: nothing of it is kept."""


@dataclass
class Fault:
    kind: Kind
    retry_after: float | None = None


def is_empty_stream(e: BaseException) -> bool:
    return isinstance(e, ValueError) and EMPTY_STREAM in str(e)


class _Absent:
    """Stands for a library that is not loaded: none of its exception types can match."""

    def __getattr__(self, name: str) -> type:
        return _Never


class _Never(Exception):
    pass


def _lib(name: str) -> Any:
    mod = sys.modules.get(name)
    return mod if isinstance(mod, ModuleType) and hasattr(mod, "__version__") else _Absent()


def classify(e: BaseException) -> Fault:
    openai, httpx = _lib("openai"), _lib("httpx")
    if is_empty_stream(e):  # the server ended the answer before its first chunk: incomplete
        return Fault("retry")
    if isinstance(e, (openai.AuthenticationError, openai.PermissionDeniedError)):
        return Fault("auth")
    if isinstance(e, openai.BadRequestError):
        text = f"{getattr(e, 'code', '')} {e}".lower()
        if any(c in text for c in CONTEXT_CODES) or any(w in text for w in CONTEXT_WORDS):
            return Fault("context")
        return Fault("fatal")
    if isinstance(e, openai.APIStatusError):
        if e.status_code == 429 or e.status_code >= 500:
            return Fault("retry", _retry_after(e.response))
        return Fault("fatal")
    if isinstance(e, (openai.APIConnectionError, openai.APITimeoutError, httpx.TransportError, IncompleteResponse)):
        return Fault("retry")
    return Fault("fatal")


def _retry_after(response: httpx.Response | None) -> float | None:  # noqa: F821 - typing only
    if response is None:
        return None
    value = response.headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def backoff(attempt: int, retry_after: float | None = None, rng: random.Random | None = None) -> float:
    """Seconds to wait before try `attempt + 1` (attempt counts from 1).

    Exponential with full jitter, capped; a server's Retry-After wins when
    it asks for longer.
    """
    r = rng or random
    ceiling = min(MAX_DELAY, BASE_DELAY * (2 ** (attempt - 1)))
    delay = ceiling / 2 + r.uniform(0, ceiling / 2)
    if retry_after is not None:
        delay = max(delay, min(retry_after, 60.0))
    return delay


async def with_retries(call: Callable[[], Awaitable[T]], on_retry: Callable[[str, float, int], None] | None = None,
                       on_context: Callable[[], None] | None = None, scale: float = 1.0) -> T:
    """Run `call` with bounded, jittered retries (Retry-After honoured): the one retry loop of
    model requests, agent turns and summaries alike.

    `on_retry(err, delay, next_try)` hears each wait; `on_context()`, when given, is called once
    when the model rejects the input as too long (the caller shrinks it) and the call is repeated.
    `scale` (Tuning.backoff_scale, test suites only): the waits are multiplied by it, so a suite does
    not sit through real back-offs; what the user is told keeps the real delay.
    """
    attempt, context_retried = 0, False
    while True:
        attempt += 1
        try:
            return await call()
        except Exception as e:  # noqa: BLE001 - classified, re-raised when final
            fault = classify(e)
            if fault.kind == "auth":
                raise AuthError(describe(e)) from None
            if fault.kind == "context" and on_context is not None and not context_retried:
                context_retried = True
                on_context()
                continue
            if fault.kind != "retry" or attempt >= MAX_TRIES:
                if is_empty_stream(e):  # one plain line for the user, not langchain's wording
                    raise IncompleteResponse("incomplete response (empty stream)") from None
                raise
            delay = backoff(attempt, fault.retry_after)
            if on_retry:
                on_retry(describe(e), delay, attempt + 1)
            import asyncio  # loaded by whoever awaits this; not by the modules that only classify

            await asyncio.sleep(delay * scale)


def describe(e: BaseException) -> str:
    """One short line for the user; never the request or its headers."""
    openai = _lib("openai")
    if isinstance(e, openai.APIStatusError):
        msg = ""
        body = e.body if isinstance(e.body, dict) else {}
        err = body.get("error") if isinstance(body.get("error"), dict) else body.get("status") or {}
        if isinstance(err, dict):
            msg = str(err.get("message") or "")
        return f"HTTP {e.status_code}" + (f" {msg[:120]}" if msg else "")
    if isinstance(e, openai.APITimeoutError):
        return "timeout"
    if isinstance(e, openai.APIConnectionError):
        return "connection error"
    if isinstance(e, IncompleteResponse):
        return "incomplete response"
    if is_empty_stream(e):
        return "incomplete response (empty stream)"
    return one_line(e)


def one_line(e: BaseException, limit: int = 200) -> str:
    """The first non-empty line of an exception (the first of a group), or its type's name."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    text = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), "")
    return (text or type(e).__name__)[:limit]
