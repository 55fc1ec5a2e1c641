"""`-p` and piped stdin: the message, and which part of it is the user's own line.

`git diff | mcp-chat -p "검토해 줘"`: the prompt is the user's line and stdin is a document
attached to it; both go to the model (the prompt first, the body in a `<stdin>` block), but only
the prompt is something the user said (long-term memory reads nothing else:
client/core/memory/parse.py own_words). `echo 질문 | mcp-chat -p`: a one-line stdin is the
user's question; a longer one (`git diff | mcp-chat -p`) is a body with no line of the user's.
Stdin is read with a prompt only when it is a pipe or a file (never a terminal, a socket or
/dev/null), so `mcp-chat -p "..."` run from a service or a loop over a terminal does not wait.
"""

from __future__ import annotations

import os
import stat
import sys


def message(own: str, body: str) -> str:
    """The one message of a `-p` with piped stdin: the user's line, then the body."""
    return f"{own}\n\n<stdin>\n{body.strip(chr(10))}\n</stdin>"


def _piped() -> bool:
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def _read() -> str:
    return sys.stdin.buffer.read().decode("utf-8", errors="replace")


def read(prompt: str) -> tuple[str, str | None]:
    """(the message, the user's own words when they are not all of it) for `-p [PROMPT]`."""
    if prompt:
        body = _read() if _piped() and not sys.stdin.isatty() else ""
        return (message(prompt, body), prompt) if body.strip() else (prompt, None)
    text = _read() if sys.stdin is not None and not sys.stdin.isatty() else ""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return text, None if len(lines) <= 1 else ""
