"""Before the chat has a renderer: the local provider's setup and start on the terminal. Its
notes translated, its progress as a rich bar on a terminal or one plain line per 10% otherwise
(CI logs stay short), a provider's notices as lines. Everything on stderr."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from client.engine.frontend import Frontend
from client.engine.frontend import SetupEvent, SetupNote, SetupProgress
from client.ui.i18n import t


class SetupView:
    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stderr
        self._rich: Any = None
        self._task: Any = None
        self._last_tenth = -1

    def __call__(self, event: SetupEvent) -> None:
        if isinstance(event, SetupNote):
            self._say(t(event.key, **event.fmt))
        else:
            self._progress(event)

    def _say(self, text: str) -> None:
        from client.ui.safe_text import screen

        print(screen(text), file=self.out, flush=True)  # a download's error text is from outside

    def _progress(self, p: SetupProgress) -> None:
        label = t(p.label)
        if p.state == "start":
            self._last_tenth = -1
            if self.out.isatty():
                self._start_bar(label, p)
            else:
                self._say(t("local_progress_pct", label=label, pct=0, note=""))
            return
        if self._rich is not None:
            if p.state == "advance":
                desc = f"{label} {p.note}" if p.note else label
                self._rich.update(self._task, completed=p.done, total=p.total, description=desc)
            else:
                self._rich.stop()
                self._rich = None
            return
        if p.state == "advance":
            tenth = p.done * 10 // p.total
            if tenth != self._last_tenth and tenth > 0:
                self._last_tenth = tenth
                self._say(t("local_progress_pct", label=label, pct=tenth * 10, note=f" ({p.note})" if p.note else ""))
        elif p.state == "done":
            self._say(t("local_progress_done", label=label, seconds=f"{p.seconds:.0f}"))

    def _start_bar(self, label: str, p: SetupProgress) -> None:
        from rich.console import Console
        from rich.progress import (BarColumn, DownloadColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TransferSpeedColumn)

        cols: list[Any] = [TextColumn("{task.description}"), BarColumn()]
        cols += [DownloadColumn(), TransferSpeedColumn()] if p.unit == "bytes" else [MofNCompleteColumn()]
        cols.append(TimeElapsedColumn())
        self._rich = Progress(*cols, console=Console(file=self.out), transient=False)
        self._rich.start()
        self._task = self._rich.add_task(label, total=p.total)


class StartFrontend(Frontend):
    """The frontend of a provider's start (client/engine/providers.py `runtime`): lines on stderr."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.view = SetupView(out)

    def notice(self, key: str, fmt: dict[str, Any] | None = None, *, warning: bool = False) -> None:
        self.view._say(t(key, **(fmt or {})))

    def setup(self, event: SetupEvent) -> None:
        self.view(event)
