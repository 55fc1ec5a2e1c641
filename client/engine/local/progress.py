"""What the one-time setup reports, as data: message keys with fields, and progress of a long step.

The engine never words or draws these; the ui installs a sink (client/ui/local_setup.py) that
translates them and shows a bar or plain lines. Setup runs deep inside provider selection, so
the sink is installed once per process rather than passed down every call.
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
_sink: SetupSink | None = None


def set_sink(sink: SetupSink | None) -> None:
    """Where setup events go (None: nowhere, e.g. in tests and as a library)."""
    global _sink
    _sink = sink


def emit(event: SetupEvent) -> None:
    if _sink is not None:
        _sink(event)


def say(key: str, **fmt: Any) -> None:
    emit(SetupNote(key, fmt))


class Progress:
    """`with Progress("local_weights_label", total=N, unit="bytes") as p: p.advance(k)`."""

    def __init__(self, label: str, total: int, unit: Literal["bytes", "steps"] = "steps") -> None:
        self.label = label
        self.total = max(1, total)
        self.unit: Literal["bytes", "steps"] = unit
        self.done = 0
        self.started = time.monotonic()

    def _event(self, state: Literal["start", "advance", "done", "failed"], note: str | None = None) -> None:
        emit(SetupProgress(self.label, self.done, self.total, self.unit, note, state, time.monotonic() - self.started))

    def __enter__(self) -> Progress:
        self._event("start")
        return self

    def advance(self, n: int = 1, note: str | None = None) -> None:
        self.done = min(self.total, self.done + n)
        self._event("advance", note)

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self._event("failed" if et is not None else "done")
