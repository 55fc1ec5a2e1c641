"""Terminal output: streamed text, tool lines, notices, status line.

Plain text when stdout is not a terminal (no ANSI, no spinner). Every line goes through
`screen` (client/ui/safe_text.py: known secrets masked, escape sequences, controls, bidi and
zero-width characters removed), whatever it holds; a streamed answer is masked as it grows
(a secret split across two chunks is caught: the last few characters wait for the next one).
Only `document` (an export) keeps the text when stdout is not a terminal, its controls written out.
When stdout is not a terminal it carries only answers and command output
(`line`, `stream`, `table`, `block`); greetings, status lines, notices, tool
lines and progress (`info`) go to stderr.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence, TextIO

from rich.cells import cell_len as cells, set_cell_size  # terminal cells: Hangul, emoji and other wide characters take two

# the one redactor and the one terminal sanitizer, re-exported for ui modules
from client.core.secrets import mask, redact, redactor  # noqa: F401
from client.ui.i18n import t
from client.ui.safe_text import StreamCleaner, clean, escape_invisible, one_line, screen, visible  # noqa: F401

if TYPE_CHECKING:
    from client.engine.mcp.hub import ToolProgress

PREVIEW_CHARS = 200
STATUS_WIDTH = 100  # terminal cells the status line fits in (fewer on a narrower terminal)


def debug_traceback(secrets: list[str]) -> str:
    """The current exception's traceback, secrets masked and cleaned (for --debug)."""
    import traceback

    return redact(clean(traceback.format_exc()), secrets)


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """One line of at most `limit` characters, masked before it is cut (no half secret left)."""
    one = one_line(text)
    return one if len(one) <= limit else one[:limit] + "…"


def cut(text: str, width: int) -> str:
    """`text` within `width` cells, ending in … when cut."""
    if cells(text) <= width:
        return text
    return set_cell_size(text, max(0, width - 1)).rstrip(" ") + "…"  # a wide character that does not fit leaves a space


def fit_parts(parts: Sequence[str], width: int, *, shrink: int = 0, droppable: Sequence[int] = (),
              sep: str = " · ") -> str:
    """`parts` joined by `sep` in at most `width` cells: part `shrink` (a long model name) is cut
    first, down to 20 cells; then the `droppable` parts go, in that order; then part `shrink` down
    to 12 cells; a last cut if need be."""
    kept = list(parts)

    def line() -> str:
        return sep.join(p for p in kept if p)

    def shorten(floor: int) -> None:
        over = cells(line()) - width
        if over > 0:
            kept[shrink] = cut(kept[shrink], max(floor, cells(kept[shrink]) - over))

    shorten(20)
    for i in droppable:
        if cells(line()) <= width:
            break
        kept[i] = ""
    shorten(12)
    return cut(line(), width)


def call_summary(name: str, args: dict, limit: int = 100) -> str:
    """`web_search(query="서울 맛집", display=5)`: one short line for a tool call."""
    parts = [f"{clean(str(k))}={escape_invisible(json.dumps(v, ensure_ascii=False))}" for k, v in args.items()]
    return f"{clean(name)}({preview(', '.join(parts), limit)})"


def result_summary(content: str, limit: int = 90) -> str:
    """A tool result in a few words: `결과 10건 (전체 1234) · 첫 제목` for search JSON, else a preview."""
    try:
        doc = json.loads(content)
    except ValueError:
        doc = None
    items = doc.get("items") if isinstance(doc, dict) else doc if isinstance(doc, list) else None
    if not isinstance(items, list):
        return preview(content, limit) or t("tool_empty")
    total = doc.get("total") if isinstance(doc, dict) else None
    text = t("tool_items", n=len(items)) + (t("tool_total", n=total) if isinstance(total, int) and total > len(items) else "")
    first = items[0].get("title") if items and isinstance(items[0], dict) else None
    return text + (f" · {preview(str(first), limit // 2)}" if first else "")


@dataclass
class Status:
    """What the line after an answer shows (from TurnDone and the thread)."""

    model: str
    thread: str
    turn: int  # completed turns of the thread
    context_turns: int  # turns the model saw
    estimated: int
    reported: int | None
    budget: int
    trimmed: int = 0
    summarized: bool = False
    seconds: float = 0.0
    provider: str = ""  # "<provider and model> · " (client/ui/provider_label.py), "" when not named
    via: str = ""  # the provider alone, after the model on the terminal's status line

    @property
    def pct(self) -> float:
        return round(100 * self.estimated / self.budget, 1) if self.budget else 0


class Renderer:
    """Plain text, for pipes and scripts: byte-for-byte stable, no ANSI on stdout."""

    interactive = False  # the rich renderer (client/ui/render_rich.py) says True

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.tty = self.out.isatty()
        self.meta = self.out if self.tty else self.err  # where `info` goes
        self._mid_line = False
        self._held = ""  # the streamed answer's tail that may still become a secret
        self._cleaner = StreamCleaner()  # and an escape sequence split across chunks

    def line(self, text: str = "") -> None:
        self.end_stream()
        print(screen(text), file=self.out, flush=True)

    def info(self, text: str = "") -> None:
        """Status, greeting, notices, tool lines: stdout at a terminal, stderr in a pipe."""
        self.end_stream()
        print(screen(text), file=self.meta, flush=True)

    def error(self, text: str) -> None:
        self.end_stream()
        text = screen(text)
        if self.err.isatty():
            text = f"\x1b[31m{text}\x1b[0m"
        print(text, file=self.err, flush=True)

    def notice(self, text: str, warning: bool = False) -> None:
        if warning:
            self.error(text)
        else:
            self.info(text)

    def stream(self, delta: str) -> None:
        self._held += self._cleaner.feed(delta)
        text, cut = redactor().settled(self._held)
        self._held = self._held[cut:]
        self._write(text)

    def _write(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.out.flush()
            self._mid_line = not text.endswith("\n")

    def end_stream(self) -> None:
        held, self._held = self._held + self._cleaner.flush(), ""
        self._write(mask(held))
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False

    def tool_call(self, name: str, args: dict) -> None:
        self.info(t("tool_select", name=clean(name)))
        self.info(t("tool_call", args=preview(escape_invisible(json.dumps(args, ensure_ascii=False)))))

    def tool_result(self, content: str, error: bool, name: str = "") -> None:
        self.info(t("tool_error" if error else "tool_result", preview=preview(content)))

    def begin_turn(self, label: str = "") -> None:
        """A turn (or a summary, or a memory update) starts: the rich renderer shows a spinner."""

    def waiting(self, label: str) -> None:
        """What the turn's spinner says it waits for (its timer starts again)."""

    def end_turn(self) -> None:
        self.end_stream()

    def status(self, st: Status) -> None:
        api = t("status_api", n=st.reported) if st.reported else ""
        action = (t("status_trim") if st.trimmed else "") + (t("status_summary") if st.summarized else "")
        self.info(t("status", provider=st.provider, est=st.estimated, api=api, pct=st.pct, turns=st.context_turns,
                    action=action))

    def hint(self, text: str) -> None:
        """Key and command hints: terminals only."""

    def block(self, text: str, title: str = "") -> None:
        """A longer text from outside (a summary): secrets masked and cleaned, terminal or pipe."""
        self.end_stream()
        print(screen(text), file=self.out, flush=True)

    def document(self, text: str) -> None:
        """A text made to be kept (an export, client/ui/export.py): cleaned at a terminal; in a
        pipe as written, masked, with any control character left written out as `\\x1b`."""
        self.end_stream()
        print(screen(text) if self.tty else visible(mask(text)), file=self.out, flush=True)

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[object]], title: str = "",
              header: bool = False, current: int | None = None) -> None:
        """Tab-separated rows (the header only when asked): easy to cut and grep."""
        if title:
            self.line(title)
        for row in ([headers] if header else []) + list(rows):
            self.line("\t".join(one_line(str(c)) for c in row))

    def clear(self) -> None:
        if self.tty:
            self.out.write("\x1b[2J\x1b[H")
            self.out.flush()

    def progress(self, p: ToolProgress) -> None:
        """A long-running tool's progress: one rewritten line on a terminal; piped, only the final line."""
        from client.ui.mcp_view import progress_line  # the MCP stack loads only when a tool reports

        text, final = progress_line(p), p.final
        if getattr(self, "_progress_open", False) and self._mid_line:
            self.out.write("\r\x1b[K")  # rewrite our own progress line in place
            self._mid_line = False
        if final:
            self.info(preview(text))
        elif self.tty:
            self.end_stream()
            self.out.write(preview(text))
            self.out.flush()
            self._mid_line = True
        self._progress_open = self.tty and not final
