"""Text from outside (a model, a tool, a server, the database) on its way out.

- `clean`: the one terminal sanitizer. Escape sequences (CSI, OSC, DCS/SOS/PM/APC strings and
  two-byte escapes) go whole, other C0/C1 controls and DEL go, and so does every format
  character (Unicode Cf: bidirectional controls, zero-width characters, the soft hyphen, tag
  characters) that makes a terminal show something other than the text (Trojan Source).
  Newlines and tabs stay.
- `screen`: what reaches a terminal: known secrets masked (client/core/secrets.py), then cleaned.
- `visible`: for Markdown written to a file or pipe: controls shown as `\\x1b` (the text is kept,
  nothing acts on a terminal later); bidi and zero-width characters are kept there.
- `json_text`: JSON whose bytes hold no control, bidi or zero-width character (`\\uXXXX` escapes:
  the same JSON value); `escape_invisible` does that to JSON already written (a tool call's
  arguments in the approval question and the tool lines: the user sees that they are there).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from client.core.invisible import FORMAT
from client.core.secrets import mask, mask_value

# ESC [ ... final | ESC ] ... (BEL | ESC \ | end) | ESC P/X/^/_ ... (ESC \ | BEL | end) | ESC + one byte
_SEQ = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"
                  r"|[ -/]*[0-~]?)")
# 8-bit forms of the same strings (CSI, OSC, DCS, SOS, PM, APC)
_SEQ8 = re.compile(r"\x9b[0-?]*[ -/]*[@-~]?|[\x90\x98\x9d\x9e\x9f][^\x07\x9c\x1b]*[\x07\x9c]?")
# every format character (client/core/invisible.py FORMAT: bidi controls, zero-width characters,
# the soft hyphen, tag characters, ...): none shows as what it is
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f" + FORMAT + "]")
_CTRL_ONLY = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_INVISIBLE = re.compile("[\x7f-\x9f" + FORMAT + "]")  # what json.dumps leaves raw


def clean(text: str) -> str:
    """Nothing in `text` can act on a terminal or hide what it shows (newlines and tabs stay)."""
    if not text:
        return text
    return _CTRL.sub("", _SEQ8.sub("", _SEQ.sub("", text.replace("\r\n", "\n"))))


# a sequence that has ended (its final byte or terminator arrived): what a stream may clean now
_ENDED = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)|(?![\[\]PX^_])[ -/]*[0-~])"
                    r"|\x9b[0-?]*[ -/]*[@-~]|[\x90\x98\x9d\x9e\x9f][^\x07\x9c\x1b]*[\x07\x9c]")
_STARTS = "\x1b\x9b\x90\x98\x9d\x9e\x9f"
MAX_PENDING = 4096  # a sequence still open after this many characters is cleaned as it is


class StreamCleaner:
    """`clean` for text that arrives in chunks: an escape sequence split across chunks is held
    until it ends, so its body ("]0;PWNED") never shows as text either."""

    def __init__(self) -> None:
        self._raw = ""

    def feed(self, chunk: str) -> str:
        raw = self._raw + chunk
        i = max(raw.rfind(c) for c in _STARTS)
        if i < 0 or len(raw) - i > MAX_PENDING or _ENDED.match(raw, i):
            self._raw = ""
            return clean(raw)
        self._raw = raw[i:]
        return clean(raw[:i])

    def flush(self) -> str:
        raw, self._raw = self._raw, ""
        return clean(raw)


def screen(text: str) -> str:
    """`text` as it may reach a terminal: cleaned, then known secrets masked (cleaning first, so
    an escape sequence or zero-width character inside a secret cannot hide it from the mask)."""
    return mask(clean(text))


def one_line(text: str) -> str:
    """`screen` on one line: any whitespace run (newlines, tabs) becomes one space."""
    return " ".join(screen(text).split())


def visible(text: str) -> str:
    """Control characters written out as `\\xNN` (a file keeps the text; `cat` of it acts on nothing)."""
    return _CTRL_ONLY.sub(lambda m: f"\\x{ord(m.group()):02x}", text.replace("\r\n", "\n"))


def json_text(doc: Any, indent: int | None = 2, extra: Iterable[str] = ()) -> str:
    """`doc` as JSON (Korean as characters), known secrets (and `extra`) masked, every invisible
    character escaped."""
    return escape_invisible(json.dumps(mask_value(doc, extra), ensure_ascii=False, indent=indent))


def escape_invisible(json_text: str) -> str:
    """JSON text with the characters `json.dumps(ensure_ascii=False)` leaves raw (DEL, C1, bidi,
    zero-width) written as `\\uXXXX`: the same value, nothing invisible or active in its bytes."""
    return _INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def guard_logging() -> None:
    """Library log records that reach stderr (Python's last-resort handler: warnings and errors
    of loggers nobody configured, e.g. the MCP SDK quoting a server's bad line under --debug)
    go through `screen` too."""
    import logging
    import sys

    class Screened(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                print(screen(self.format(record)), file=sys.stderr, flush=True)
            except Exception:  # noqa: BLE001 - as logging's own handlers do
                self.handleError(record)

    logging.lastResort = Screened(logging.WARNING)
