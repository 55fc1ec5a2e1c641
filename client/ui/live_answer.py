"""The streamed answer at a terminal: finished Markdown blocks go to the scrollback as they end,
and the live region (rich's Live, client/ui/render_rich.py) holds only the block being written.

A resize while an answer streams left a fragment of the live region above the answer: a terminal
that reflows (tmux, iTerm2, VTE, kitty...) wraps each line wider than its new width onto more rows,
and rich moved the cursor up by the lines it had drawn. So the region is small (one block, at most
half the screen), its lines carry no padding (fewer wrap), and it counts its rows at the width the
terminal has now before it is drawn again or erased, once that width has held for a moment (tmux
reflows at once but reports a second width 250 ms after the first). (tmux keeps the last used row of the screen
where it was and pushes what grew above it into its history, out of the cursor's reach: only a
small region stays within it.)

The answer's lines are rendered whole each time (rich's Markdown of the text so far), so a block
printed early looks exactly as it would in the whole answer: the lines already printed are skipped.
"""

from __future__ import annotations

import re
import time
from typing import Sequence

from rich._loop import loop_last
from rich.cells import get_character_cell_size
from rich.console import Console, ConsoleOptions, RenderResult
from rich.control import Control
from rich.live import Live
from rich.live_render import LiveRender
from rich.markdown import Markdown
from rich.segment import Segment

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
QUIET = 0.4  # s a new terminal width must hold before the region is drawn at it (tmux: 250 ms)


class Region(LiveRender):
    """rich's live region, erased whole after the terminal narrowed (its rows counted at the width
    the terminal has now), drawn without trailing padding."""

    def __init__(self, *a: object, **kw: object) -> None:
        super().__init__(*a, **kw)  # type: ignore[arg-type]
        self._texts: list[str] = []  # the lines drawn
        self._console: Console | None = None
        self._width = 0  # the width the terminal settled at

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = [rstrip(line) for line in Segment.split_lines(super().__rich_console__(console, options))]
        self._texts = ["".join(s.text for s in line if not s.control) for line in lines]
        self._console = console
        for last, line in loop_last(lines):
            yield from line
            if not last:
                yield Segment.line()

    def settle(self, console: Console) -> None:
        """Wait until the terminal's width has held for QUIET s once it changed: tmux reflows its
        screen at once but tells the program a size that follows another up to 250 ms later, and
        rows counted or drawn at the width in between are wrong (a fragment left, a line erased)."""
        width, since = console.width, time.monotonic()
        while width != self._width and self._width and time.monotonic() - since < QUIET:
            time.sleep(0.02)
            if console.width != width:
                width, since = console.width, time.monotonic()
        self._width = width

    def _reflowed(self) -> None:
        if self._shape is not None and self._console is not None and self._texts:
            self.settle(self._console)
            self._shape = (self._shape[0], sum(rows(text, self._width) for text in self._texts))

    def position_cursor(self) -> Control:
        self._reflowed()
        return super().position_cursor()

    def restore_cursor(self) -> Control:
        self._reflowed()
        return super().restore_cursor()


class RegionLive(Live):
    """rich's Live over a Region, redrawn once the terminal's width has settled."""

    def __init__(self, *a: object, **kw: object) -> None:
        super().__init__(*a, **kw)  # type: ignore[arg-type]
        self._live_render = Region(self.get_renderable(), vertical_overflow=self.vertical_overflow)

    def settle(self) -> None:
        self._live_render.settle(self.console)  # type: ignore[attr-defined]

    def refresh(self) -> None:
        with self._lock:
            self.settle()
            super().refresh()


def rows(text: str, width: int) -> int:
    """The rows `text` takes on a terminal `width` cells wide: a wide character that does not fit
    at the end of a row starts the next one (so cells / width can count too few)."""
    n, col = 1, 0
    for ch in text:
        cells = get_character_cell_size(ch)
        if col + cells > width and col:
            n, col = n + 1, 0
        col += cells
    return n


class Lines:
    """Rendered lines as a renderable."""

    def __init__(self, lines: Sequence[list[Segment]]) -> None:
        self.lines = lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines:
            yield from line
            yield Segment.line()


def rstrip(line: list[Segment]) -> list[Segment]:
    """A rendered line without the blanks that pad it to the console's width."""
    line = list(line)
    while line and not line[-1].control and not line[-1].text.rstrip():
        line.pop()
    if line and not line[-1].control:
        last = line[-1]
        line[-1] = Segment(last.text.rstrip(), last.style)
    return line


def rendered(console: Console, text: str, *, whole: bool = False) -> list[list[Segment]]:
    """`text` as Markdown lines at the console's width; without its trailing blank lines unless
    `whole` (the end of the answer: as printing the Markdown would)."""
    lines = console.render_lines(Markdown(text), console.options, pad=False)
    while lines and not whole and not "".join(s.text for s in lines[-1] if not s.control).strip():
        lines.pop()
    return lines


def _scan(lines: list[str]) -> tuple[int, str, int]:
    """(where the last blank line outside a code fence starts, the fence still open or "", where
    its opening line starts) over `lines` of a text."""
    end, fence, pos, opened, seen = 0, "", 0, 0, False
    for line in lines:
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = ""
        elif m:
            fence, opened = m.group(1), pos
        elif not line.strip() and seen:
            end = pos
        seen = seen or bool(line.strip())
        pos += len(line) + 1
    return end, fence, opened


def open_fence(text: str) -> str:
    """The opening line of the code fence `text` ends inside, or ""."""
    _, fence, opened = _scan(text.split("\n"))
    return text[opened:].split("\n", 1)[0] if fence else ""


def finished(text: str) -> tuple[int, str]:
    """(where the finished part of `text` ends, what closes it): its blocks up to its last blank
    line outside a code fence; inside a fence still open, its lines written so far too (a long
    code block scrolls by as it is written), closed by the fence. (0, "") when nothing is finished."""
    lines = text.split("\n")[:-1]  # the last line may still grow
    end, fence, opened = _scan(lines)
    whole = sum(len(line) + 1 for line in lines)
    if fence and whole > text.index("\n", opened) + 1:  # a line of code is whole
        return whole - 1, "\n" + fence
    return end, ""
