"""Terminal output for an interactive session (stdin and stdout both terminals), with rich.

Same calls as the plain Renderer. While a turn runs, one transient Live region at the bottom
shows a spinner (waiting for the first token, a tool, a summary) or the block of the answer
being written, rendered as Markdown (the finished blocks go above it as they end:
client/ui/live_answer.py). What is final goes above it and stays in the scrollback: tool
lines (`⏺ web_search(query="…")` / `⎿ 결과 10건 · 0.4s`), the whole answer as Markdown, notices,
errors (one red line) and a dim status line. Everything shown goes through `screen` (known
secrets masked; escapes, controls, bidi and zero-width characters removed) and is never read as
rich markup; the streaming answer shows only what no later chunk can turn into a secret.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, Sequence, TextIO

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.panel import Panel
from rich.segment import Segment
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from client.ui.i18n import t
from client.ui.live_answer import Lines, RegionLive, finished, open_fence, rendered
from client.ui.render import (STATUS_WIDTH, Renderer, Status, call_summary, clean, fit_parts, mask, one_line, preview,
                              redactor, result_summary, screen)

if TYPE_CHECKING:
    from client.engine.mcp.hub import ToolProgress


class Tail:
    """The last `rows` lines of a renderable, so a streaming answer never outgrows the screen
    (a Live region taller than the terminal cannot be redrawn in place)."""

    def __init__(self, renderable: RenderableType, rows: int) -> None:
        self.renderable = renderable
        self.rows = rows

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.renderable, options, pad=False)
        for line in lines[-self.rows:]:
            yield from line
            yield Segment.line()


class RichRenderer(Renderer):
    interactive = True

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None, console: Console | None = None) -> None:
        super().__init__(out, err)
        self.console = console or Console(file=self.out, highlight=False, emoji=False)
        self.err_tty = self.err.isatty()
        self._live: RegionLive | None = None
        self._answer = ""  # the model text of this answer (its first `_done` rendered lines are printed)
        self._done = 0  # rendered lines of the answer printed for good (its finished blocks)
        self._done_chars = 0  # the text they render
        self._done_width = 0  # the width they were rendered at
        self._gap = False  # a blank line before the next lines printed (the answer was resized in between)
        self._spinner = Spinner("dots", style="cyan")
        self._waiting = ""
        self._since = time.monotonic()  # when the current wait began
        self._started = time.monotonic()  # when the turn began
        self._tools: list[tuple[str, float]] = []  # calls awaiting their result

    # -- the live region -----------------------------------------------------
    def begin_turn(self, label: str = "") -> None:
        self.end_turn()
        self._answer, self._tools = "", []
        self._started = time.monotonic()
        self._wait(label or t("spin_thinking"))
        self._start_live()

    def _start_live(self) -> None:
        self._live = RegionLive(console=self.console, get_renderable=self._view, transient=True,
                          refresh_per_second=12, redirect_stdout=True, redirect_stderr=True)
        self._live.start(refresh=True)  # drawn now: the first print above it must know its height

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No live region meanwhile (a question is asked); it comes back after, if a turn runs."""
        self._flush_answer()
        live, self._live = self._live, None
        if live is not None:
            live.stop()
        try:
            yield
        finally:
            if live is not None and self._live is None:
                self._start_live()

    def end_turn(self) -> None:
        self._flush_answer()
        if self._live is not None:
            live, self._live = self._live, None
            live.stop()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._started

    def _wait(self, label: str) -> None:
        self._waiting, self._since = label, time.monotonic()

    def waiting(self, label: str) -> None:
        self._wait(label)

    def _view(self) -> RenderableType:
        """The live region: the block being written (its last rows, at most half the screen: client/ui/live_answer.py)."""
        self._rebase()
        shown = redactor().settled(self._answer)[0]
        if self._answer[self._done_chars:].strip():
            return Tail(Lines(rendered(self.console, shown)[self._done:]), max(3, (self.console.size.height - 3) // 2))
        secs = time.monotonic() - self._since
        self._spinner.update(text=Text(f"{self._waiting} {secs:.1f}s", style="dim"))
        return self._spinner

    @contextmanager
    def _drawing(self) -> Iterator[None]:
        """Print above the live region under its lock. rich holds that lock for a whole refresh
        but, for a print, only while it computes how far up the region starts, not while it
        draws: a refresh in between redraws the region at another height, and the print then
        moves up by the old height, over lines already in the scrollback."""
        live = self._live
        if live is None:
            yield
            return
        with live._lock:  # an RLock: rich's own print path takes it again inside
            live.settle()  # rendered at the width the terminal settled at
            yield

    def _print(self, renderable: RenderableType) -> None:
        with self._drawing():
            self.console.print(renderable, markup=False, highlight=False)

    def _flush_answer(self) -> None:
        with self._drawing():  # the refresh thread never sees the answer gone but not yet printed
            self._rebase()
            text = mask(self._answer + self._cleaner.flush())
            lines = rendered(self.console, text, whole=True)[self._done:] if text[self._done_chars:].strip() else []
            self._answer, self._done, self._done_chars = "", 0, 0
            self._print_lines(lines)
            self._gap = False

    def _print_finished(self) -> None:
        """The answer's finished blocks, printed for good as the next one begins."""
        with self._drawing():  # the width settled and the answer rebased before its blocks are cut
            self._rebase()
            end, close = finished(self._answer[:redactor().settled(self._answer)[1]])
            if end <= self._done_chars:
                return
            lines = rendered(self.console, mask(self._answer[:end]) + close)
            new, self._done, self._done_chars = lines[self._done:], len(lines), end
            self._done_width = self.console.width
            self._print_lines(new)

    def _rebase(self) -> None:
        """After a resize, what was printed stays as it is and the rest of the answer is rendered
        on its own at the new width (a blank line between, as between blocks)."""
        if self._done and self.console.width != self._done_width:
            opener = open_fence(self._answer[:self._done_chars])  # the rest of a code block stays code
            self._answer = (opener + "\n" if opener else "") + self._answer[self._done_chars:].lstrip("\n")
            self._done = self._done_chars = 0
            self._gap = not opener  # a code block has its own blank line above

    def _print_lines(self, lines: list) -> None:
        if lines:
            self._print(Lines([[], *lines] if self._gap else lines))
            self._gap = False

    # -- what the REPL calls -------------------------------------------------
    def line(self, text: str = "") -> None:
        self._flush_answer()
        self._print(Text(screen(text)))

    info = line  # stdout is this terminal

    def error(self, text: str) -> None:
        self._flush_answer()
        text = screen(text)
        if self.err_tty:  # the same screen: keep the order with everything else
            self._print(Text(text, style="red"))
        else:
            print(text, file=self.err, flush=True)

    def notice(self, text: str, warning: bool = False) -> None:
        if warning:
            self._flush_answer()
            self._print(Text(screen(text), style="yellow"))
        else:
            self.line_dim(text)

    def line_dim(self, text: str) -> None:
        self._flush_answer()
        self._print(Text(screen(text), style="dim"))

    hint = line_dim

    def stream(self, delta: str) -> None:
        self._answer += self._cleaner.feed(delta)
        self._print_finished()

    def end_stream(self) -> None:
        self._flush_answer()

    def tool_call(self, name: str, args: dict) -> None:
        self._flush_answer()
        self._print(Text.assemble(("⏺ ", "cyan"), (screen(call_summary(name, args)), "bold")))
        self._tools.append((name, time.monotonic()))
        self._wait(t("spin_tool", name=clean(name)))

    def tool_result(self, content: str, error: bool, name: str = "") -> None:
        self._flush_answer()
        i = next((i for i, (n, _) in enumerate(self._tools) if n == name), 0)
        started = self._tools.pop(i)[1] if self._tools else time.monotonic()
        what = t("tool_failed", err=preview(content, 90)) if error else result_summary(content)
        self._print(Text.assemble(("  ⎿  ", "dim"), (what, "red" if error else ""),
                                  (f" · {time.monotonic() - started:.1f}s", "dim")))
        if not self._tools:
            self._wait(t("spin_thinking"))

    def progress(self, p: ToolProgress) -> None:
        from client.ui.mcp_view import progress_line

        text, final = progress_line(p), p.final
        if final:
            self.line_dim(preview(text))
        else:
            self._wait(preview(text, 80))

    def status(self, st: Status) -> None:
        self.end_turn()
        self._print(Text(screen(status_line(st, min(STATUS_WIDTH, self.console.width))), style="dim"))

    def block(self, text: str, title: str = "") -> None:
        self._flush_answer()
        body = Markdown(screen(text))
        self._print(Panel(body, title=title, title_align="left", border_style="dim") if title else body)

    def document(self, text: str) -> None:
        self.block(text)

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[object]], title: str = "",
              header: bool = False, current: int | None = None) -> None:
        self._flush_answer()
        if title:
            self._print(Text(screen(title), style="bold"))
        tab = Table(box=None,
                    header_style="bold dim", pad_edge=False, padding=(0, 2, 0, 0))
        texts = [[Text(f"{c:,}" if isinstance(c, int) else one_line(str(c))) for c in row] for row in rows]
        numeric = [all(isinstance(r[col], int) or r[col] == "-" for r in rows[:-1] or rows) for col in range(len(headers))]
        widths = column_widths([[Text(h), *(r[col] for r in texts)] for col, h in enumerate(headers)], numeric,
                               self.console.width)
        for col, h in enumerate(headers):
            tab.add_column(h, justify="right" if numeric[col] else "left", overflow="ellipsis", no_wrap=True,
                           width=widths[col])
        total = bool(rows) and str(rows[-1][0]) == t("tokens_total")
        for i, cells in enumerate(texts):
            tab.add_row(*cells, style="bold cyan" if i == current else "bold" if total and i == len(rows) - 1 else None,
                        end_section=total and i == len(rows) - 2)
        self._print(tab)

    def clear(self) -> None:
        self.console.clear()


def column_widths(columns: Sequence[Sequence[Text]], numeric: Sequence[bool], width: int, gap: int = 2,
                  floor: int = 8) -> list[int]:
    """Each column's width in cells when a table must fit `width`: the widest text column gives a
    cell at a time, down to `floor` (or its header); numbers are never cut. rich's own squeeze
    can shrink a narrow column to nothing (/threads at 110 columns lost its turn counts)."""
    natural = [max(x.cell_len for x in col) for col in columns]
    least = [n if numeric[i] else min(n, max(floor, columns[i][0].cell_len)) for i, n in enumerate(natural)]
    out = list(natural)
    excess = sum(out) + gap * (len(out) - 1) - width
    while excess > 0:
        give = [i for i in range(len(out)) if out[i] > least[i]]
        if not give:
            break
        widest = max(give, key=lambda i: out[i])
        out[widest] -= 1
        excess -= 1
    return out


def status_line(st: Status, width: int) -> str:
    """Model, provider, session, turns, tokens, budget, actions, seconds: one line of at most
    `width` cells. A long model name is cut first (to 20 cells), then the seconds, the provider
    and the budget go, then the model name is cut further: the model stays, before its provider."""
    tokens = st.reported if st.reported else st.estimated
    parts = [st.model, st.via, t("tty_thread", id=_short_id(st.thread)),
             t("tty_turns", n=st.turn, ctx=st.context_turns), t("tty_tokens", n=f"{tokens:,}", est="" if st.reported else "~"),
             t("tty_budget", pct=st.pct, budget=f"{st.budget:,}"),
             t("tty_trimmed") if st.trimmed else "", t("tty_summarized") if st.summarized else "", f"{st.seconds:.1f}s"]
    return fit_parts([clean(p) for p in parts], width, shrink=0, droppable=(8, 1, 5))


def _short_id(tid: str) -> str:
    return tid if len(tid) <= 16 else tid[:8] + "…"


__all__ = ["RichRenderer", "Tail"]
