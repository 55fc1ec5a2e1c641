"""What the one-time setup reports, as data: message keys with fields, and progress of a long step.

The engine never words or draws these: the setup steps take a `report` callable (the UI's
frontend, client/engine/frontend.py, shows them: client/ui/local_setup.py); without one they
go nowhere.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Callable, Literal


@dataclass(frozen=True)
class SetupNote:
    """A message: `key` in the ui's tables, formatted with `fmt`."""

    key: str
    fmt: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SetupProgress:
    """One step of a long task: `label` is a message key; `state` says start, advance or end."""

    label: str
    done: int
    total: int
    unit: Literal["bytes", "steps"] = "steps"
    note: str | None = None
    state: Literal["start", "advance", "done", "failed"] = "advance"
    seconds: float = 0.0


SetupEvent = SetupNote | SetupProgress
SetupSink = Callable[[SetupEvent], None]


def ignore(event: SetupEvent) -> None:
    """The default report: nobody is watching (tests, library use)."""


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
