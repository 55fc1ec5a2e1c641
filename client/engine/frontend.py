"""The one way from the engine to the screen beside a turn's events: a `Frontend`.

The UI implements it and hands it to the constructors that need it (ToolHub, Permissions,
ClientFeatures, a provider's runtime); nothing is assigned to an engine object later. As the
MCP SDK's `ClientSession(sampling_callback=..., elicitation_callback=...)` does, the default
declines: `Frontend()` shows nothing and answers every question with None ("nobody to ask"),
which is what a script, a test or a library user gets. Nothing here is worded: a notice is an
i18n key with fields, translated by the UI.

What happens inside a turn is an event of the turn (client/engine/events.py). The frontend
carries the rest: a server's requests (sampling, elicitation, an OAuth login), a tool's
progress, the question before a tool call runs, and the local model's one-time setup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal


@dataclass(frozen=True)
class ToolProgress:
    """One progress notification of a running tool call, or how the call ended."""

    tool: str
    done: float
    total: float | None = None
    message: str | None = None
    state: Literal["running", "done", "stopped"] = "running"

    @property
    def final(self) -> bool:
        return self.state != "running"


@dataclass(frozen=True)
class ApprovalRequest:
    """What the approval question shows: server, tool and arguments (secrets already masked)."""

    server: str
    where: str
    tool: str
    args: str  # JSON, secrets masked, at most permissions.ARGS_SHOWN characters
    hidden: int = 0  # characters of the arguments cut off
    destructive: bool | None = None  # the tool's destructiveHint, when it gives one
    changed: tuple[str, ...] = ()  # approved before, changed since: which parts (client/core/toolprint.py)


@dataclass(frozen=True)
class Field:
    """One field of an elicitation form (client/engine/mcp/features.py reads the schema)."""

    name: str
    type: str  # string | integer | number | boolean | array (of enum strings)
    title: str
    description: str
    default: Any
    enum: list[str] | None
    required: bool


FormAnswer = tuple[str, dict[str, Any] | None]  # (accept | decline | cancel, values)


@dataclass(frozen=True)
class SetupNote:
    """A message of the local model's one-time setup: `key` in the ui's tables, formatted with `fmt`."""

    key: str
    fmt: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SetupProgress:
    """One step of a long setup task (client/engine/local/progress.py): `label` is a message
    key; `state` says start, advance or end."""

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
    """The default setup report: nobody is watching (tests, library use)."""


class Frontend:
    """Shows nothing and declines every question; the UI overrides what it can do.

    Display methods must not raise into the engine (callers guard them anyway); the questions
    return None when nobody can be asked, which the engine treats as a refusal."""

    def notice(self, key: str, fmt: dict[str, Any] | None = None, *, warning: bool = False) -> None:
        """A line for the user (e.g. an OAuth login URL, a sampling request and its answer)."""

    def progress(self, event: ToolProgress) -> None:
        """A running tool's progress (MCP progress notifications), and how the call ended."""

    def setup(self, event: SetupEvent) -> None:
        """The local model's one-time setup: notes and the progress of a long step."""

    async def approve(self, request: ApprovalRequest) -> str | None:
        """May this tool call run? once | session | always | deny; None: nobody to ask."""
        return None

    async def ask_form(self, server: str, message: str, fields: list[Field]) -> FormAnswer | None:
        """A server's elicitation form; None: nobody to ask (declined)."""
        return None

    async def confirm(self, kind: str, server: str, summary: str) -> bool | None:
        """A yes/no question about a server's request (kind: sampling | url | oauth_endpoint); None: nobody to ask."""
        return None

    def open_url(self, url: str) -> None:
        """Open a login page in a browser, when there is one (the URL was shown as a notice)."""


def tell(frontend: Frontend, key: str, **fmt: Any) -> None:
    """A notice through `frontend`; a display problem never fails the engine's work."""
    try:
        frontend.notice(key, fmt)
    except Exception:  # noqa: BLE001
        pass
