"""The progress of a long setup step (a build, a download), reported as data.

The events themselves (SetupNote, SetupProgress) live beside the Frontend that receives them
(client/engine/frontend.py): the engine never words or draws them; the setup steps take a
`report` callable (the UI's frontend shows them: client/ui/local_setup.py); without one they
go nowhere.
"""

from __future__ import annotations

import time
from types import TracebackType
from typing import Literal

from client.engine.frontend import SetupProgress, SetupSink, ignore


class Progress:
    """`with Progress("local_weights_label", total=N, unit="bytes", report=r) as p: p.advance(k)`."""

    def __init__(self, label: str, total: int, unit: Literal["bytes", "steps"] = "steps",
                 report: SetupSink = ignore) -> None:
        self.label = label
        self.total = max(1, total)
        self.unit: Literal["bytes", "steps"] = unit
        self.report = report
        self.done = 0
        self.started = time.monotonic()

    def _event(self, state: Literal["start", "advance", "done", "failed"], note: str | None = None) -> None:
        self.report(SetupProgress(self.label, self.done, self.total, self.unit, note, state,
                                  time.monotonic() - self.started))

    def __enter__(self) -> Progress:
        self._event("start")
        return self

    def advance(self, n: int = 1, note: str | None = None) -> None:
        self.done = min(self.total, self.done + n)
        self._event("advance", note)

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self._event("failed" if et is not None else "done")
