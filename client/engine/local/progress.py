"""Progress for the one-time setup: a rich bar on a terminal, plain lines otherwise (stderr)."""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO


def say(text: str, out: TextIO | None = None) -> None:
    print(text, file=out or sys.stderr, flush=True)


class Progress:
    """`with Progress("모델 내려받기", total=N, unit="bytes") as p: p.advance(k)`.

    Plain mode prints one line per 10% (or per step when total is small) so that
    logs from CI stay short and readable.
    """

    def __init__(self, label: str, total: int, unit: str = "steps", out: TextIO | None = None) -> None:
        self.label = label
        self.total = max(1, total)
        self.unit = unit
        self.out = out or sys.stderr
        self.done = 0
        self.started = time.monotonic()
        self._rich = None
        self._task = None
        self._last_tenth = -1

    def __enter__(self) -> Progress:
        if self.out.isatty():
            from rich.console import Console
            from rich.progress import (BarColumn, DownloadColumn, MofNCompleteColumn, Progress as RichProgress,
                                       TextColumn, TimeElapsedColumn, TransferSpeedColumn)

            cols = [TextColumn("{task.description}"), BarColumn()]
            cols += [DownloadColumn(), TransferSpeedColumn()] if self.unit == "bytes" else [MofNCompleteColumn()]
            cols.append(TimeElapsedColumn())
            self._rich = RichProgress(*cols, console=Console(file=self.out), transient=False)
            self._rich.start()
            self._task = self._rich.add_task(self.label, total=self.total)
        else:
            say(f"{self.label}: 0%", self.out)
        return self

    def advance(self, n: int = 1, note: str | None = None) -> None:
        self.done = min(self.total, self.done + n)
        if self._rich is not None:
            desc = f"{self.label} {note}" if note else self.label
            self._rich.update(self._task, completed=self.done, total=self.total, description=desc)  # type: ignore[arg-type]
            return
        tenth = self.done * 10 // self.total
        if tenth != self._last_tenth and tenth > 0:
            self._last_tenth = tenth
            extra = f" ({note})" if note else ""
            say(f"{self.label}: {tenth * 10}%{extra}", self.out)

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        if self._rich is not None:
            self._rich.stop()
        elif et is None:
            say(f"{self.label}: 완료 ({time.monotonic() - self.started:.0f}초)", self.out)
