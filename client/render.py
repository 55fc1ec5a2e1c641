"""Terminal output: streamed text, tool lines, notices, status line.

Plain text when stdout is not a terminal (no ANSI, no spinner); anything
coming from the model or a tool is cleaned of control sequences first.
"""

from __future__ import annotations

import json
import re
import sys
from typing import TextIO

from .i18n import t

_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
PREVIEW_CHARS = 200


def clean(text: str) -> str:
    """Neutralize terminal escape sequences and control characters."""
    return _CTRL.sub("", _ANSI.sub("", text.replace("\r\n", "\n")))


def redact(text: str, secrets: list[str]) -> str:
    """Mask every secret value (API keys, credentials) in text meant for output."""
    for v in secrets:
        if v:
            text = text.replace(v, "***")
    return text


def debug_traceback(secrets: list[str]) -> str:
    """The current exception's traceback, secrets masked (for --debug)."""
    import traceback

    return redact(traceback.format_exc(), secrets)


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    one = " ".join(clean(text).split())
    return one if len(one) <= limit else one[:limit] + "…"


class Renderer:
    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.tty = self.out.isatty()
        self._mid_line = False

    def line(self, text: str = "") -> None:
        self.end_stream()
        print(text, file=self.out, flush=True)

    def error(self, text: str) -> None:
        self.end_stream()
        if self.err.isatty():
            text = f"\x1b[31m{text}\x1b[0m"
        print(text, file=self.err, flush=True)

    def notice(self, text: str, warning: bool = False) -> None:
        if warning:
            self.error(text)
        else:
            self.line(text)

    def stream(self, delta: str) -> None:
        text = clean(delta)
        if text:
            self.out.write(text)
            self.out.flush()
            self._mid_line = not text.endswith("\n")

    def end_stream(self) -> None:
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False

    def tool_call(self, name: str, args: dict) -> None:
        self.line(t("tool_select", name=clean(name)))
        self.line(t("tool_call", args=preview(json.dumps(args, ensure_ascii=False))))

    def tool_result(self, content: str, error: bool) -> None:
        self.line(t("tool_error" if error else "tool_result", preview=preview(content)))

    def progress(self, text: str, final: bool) -> None:
        """A long-running tool's progress: one rewritten line on a terminal; piped, only the final line."""
        if getattr(self, "_progress_open", False) and self._mid_line:
            self.out.write("\r\x1b[K")  # rewrite our own progress line in place
            self._mid_line = False
        if final:
            self.line(preview(text))
        elif self.tty:
            self.end_stream()
            self.out.write(preview(text))
            self.out.flush()
            self._mid_line = True
        self._progress_open = self.tty and not final
