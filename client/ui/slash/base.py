"""What every slash command gets: the context object and the table entry type."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Awaitable, Callable

from client.core.config import YES_WORDS as YES  # noqa: F401 - the handlers' yes-words

if TYPE_CHECKING:
    from client.core.config import Settings
    from client.engine.mcp.hub import ToolHub
    from client.engine.session import ChatSession
    from client.ui.render import Renderer


@dataclass
class SlashContext:
    """What a handler may use. The REPL supplies the callables: reading an answer, switching
    thread, compacting and running a turn are its loop's business (spinner, Ctrl-C)."""
    session: ChatSession
    r: Renderer
    hub: ToolHub
    read_line: Callable[..., Awaitable[str | None]]  # (prompt=None) -> a line, None at EOF
    switch: Callable[[str | None], Awaitable[None]]  # None: a new thread
    compact: Callable[[str], Awaitable[None]]  # focus ("" for none)
    turn: Callable[[str], Awaitable[None]]  # a message as if typed

    @property
    def s(self) -> Settings:
        """The session's settings: after /model, those of the new model."""
        return self.session.settings


# A handler gets the context and the argument text; "exit" ends the session.
Handler = Callable[[SlashContext, str], Awaitable["str | None"]]


@dataclass(frozen=True)
class Entry:
    name: str
    hint: str  # argument hint shown by /help and the completer; "" for none
    handler: Handler
    aliases: tuple[str, ...] = field(default=())

    @property
    def shown_hint(self) -> str:
        """The hint in the UI language: words are translated (`hint_<name>`), symbols stay."""
        from client.ui.i18n import TABLES, t

        key = f"hint_{self.name}"
        return t(key) if key in TABLES["ko"] else self.hint

    @property
    def help_key(self) -> str:
        """Its /help line in client/ui/i18n.py."""
        return f"help_{self.name}"
