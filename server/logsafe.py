"""Log lines that outside data cannot break: one record is one line, control bytes shown escaped.

Request paths and header values reach the log (ours and the SDK's, e.g. a refused Host). A raw
LF there forges a second line, an ESC drives the terminal that tails the log, a bidi override
reorders what the reader sees. Every message therefore goes through `escape`, in the formatter
that writes stderr, so no logger (ours, the SDK's, uvicorn's) can write such a character raw.
"""

from __future__ import annotations

import asyncio
import logging
import time
import unicodedata
from collections import Counter
from typing import Any

# Control (C0, DEL, C1), format (bidi, zero-width, BOM), line/paragraph separators, surrogates,
# private use, unassigned: never written raw.
_UNSAFE = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"))


def _code(ch: str) -> str:
    o = ord(ch)
    return f"\\x{o:02x}" if o <= 0xFF else f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}"


def escape(text: str) -> str:
    """`text` with every unsafe character as `\\xNN`/`\\uNNNN` (printable text, also Korean,
    unchanged). Idempotent: the result contains nothing unsafe, so escaping twice changes nothing."""
    if text.isprintable():  # the common case; isprintable() is False for every unsafe category
        return text
    return "".join(_code(ch) if unicodedata.category(ch) in _UNSAFE else ch for ch in text)


def escape_lines(text: str) -> str:
    """Each line escaped, the line structure kept (tracebacks)."""
    return "\n".join(escape(line) for line in text.split("\n"))


def url_path(raw: bytes) -> str:
    """A request path for the log as it came on the wire: bytes outside visible ASCII (and the
    space) as %XX, so `/mcp%0aX` stays `/mcp%0aX` and a raw byte can never end the line."""
    return "".join(chr(b) if 0x21 <= b <= 0x7E else f"%{b:02X}" for b in raw)


class OneLineFormatter(logging.Formatter):
    """A Formatter whose message is always one line of visible characters. Tracebacks keep their
    lines (each escaped); they come from our own code paths, not from a request's bytes."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = escape(record.message)
        return super().formatMessage(record)

    def formatException(self, ei: object) -> str:
        return escape_lines(super().formatException(ei))  # type: ignore[arg-type]

    def formatStack(self, stack_info: str) -> str:
        return escape_lines(super().formatStack(stack_info))


class Throttle:
    """Events of a kind that may come thousands a second (an attack) told at most once a `period`:
    `note(what)` counts one and returns the counts since the last line ("12 slowest evicted") when
    a line is due, else ""."""

    def __init__(self, period: float = 1.0) -> None:
        self.period = period
        self.counts: Counter[str] = Counter()
        self.last = float("-inf")

    def note(self, what: str) -> str:
        self.counts[what] += 1
        now = time.monotonic()
        if now - self.last < self.period:
            return ""
        self.last = now
        told = ", ".join(f"{n} {k}" for k, n in self.counts.items())
        self.counts.clear()
        return told


ACCEPT_FAILED = "socket.accept() out of system resource"


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """asyncio logs a failed accept (no descriptor left) with a traceback, and on Linux again and
    again while the listening socket stays ready (225 MB in 45 s, issue 50): here it is one line a
    second at most, with how often it happened; every other loop error goes where it went."""
    throttle, before = Throttle(1.0), loop.get_exception_handler()
    logger = logging.getLogger("server")

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != ACCEPT_FAILED:
            (before(loop, context) if before else loop.default_exception_handler(context))
            return
        told = throttle.note("failed")
        if told:
            logger.error("cannot accept a connection: %s (%s accepts since the last line)", context.get("exception"), told)

    loop.set_exception_handler(handler)
