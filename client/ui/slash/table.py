"""The slash commands as one table: name, aliases, argument hint, help key, handler.

Parsing, /help and dispatch all read this table; the completer (client/ui/tui.py) too.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len

from client.ui.i18n import t
from client.ui.slash import context as ctx
from client.ui.slash import mcp, threads
from client.ui.provider_label import provider_lines
from client.ui.slash.base import Entry, SlashContext

HELP_COLUMN = 34  # terminal cells before the description


async def _help(c: SlashContext, arg: str) -> None:
    c.r.line(help_text(provider_lines(c.s)[1]))
    c.r.hint(t("tty_hints"))


async def _exit(c: SlashContext, arg: str) -> str:
    return "exit"


# In /help order.
TABLE: tuple[Entry, ...] = (
    Entry("help", "", _help, ("h", "?")),
    Entry("new", "", threads.new),
    Entry("clear", "", threads.clear),
    Entry("threads", "", threads.threads),
    Entry("resume", "ID", threads.resume),
    Entry("delete", "ID", threads.delete),
    Entry("export", "[PATH]", threads.export),
    Entry("fork", "[N]", threads.fork),
    Entry("rewind", "[N]", threads.rewind),
    Entry("context", "[none|trim|summarize]", ctx.context),
    Entry("compact", "[초점]", ctx.compact),
    Entry("summary", "", ctx.summary),
    Entry("tokens", "", ctx.tokens),
    Entry("model", "[NAME]", ctx.model),
    Entry("tools", "", mcp.tools),
    Entry("servers", "", mcp.servers),
    Entry("mcp", "[enable|disable NAME]", mcp.mcp),
    Entry("permissions", "[reset]", mcp.permissions),
    Entry("title", "[TEXT]", threads.title),
    Entry("memory", "", ctx.memory),
    Entry("forget", "N", ctx.forget),
    Entry("end", "", threads.new),  # the memory update happens when the thread is left
    Entry("prompts", "", mcp.prompts),
    Entry("prompt", "서버:이름 키=값..", mcp.prompt),
    Entry("resources", "", mcp.resources),
    Entry("roots", "[PATH]", mcp.roots),
    Entry("cls", "", ctx.cls),
    Entry("exit", "", _exit, ("quit", "q")),
)
BY_NAME: dict[str, Entry] = {e.name: e for e in TABLE}
ALIASES: dict[str, str] = {a: e.name for e in TABLE for a in e.aliases}


@dataclass(frozen=True)
class Command:
    name: str  # canonical name, or the unknown word as typed
    arg: str
    known: bool


def parse(line: str) -> Command | None:
    """`/name arg...` -> Command; anything not starting with '/' -> None."""
    s = line.strip()
    if not s.startswith("/") or s == "/":
        return None
    head, *rest = s[1:].split(None, 1)
    name = ALIASES.get(head.lower(), head.lower())
    return Command(name, rest[0].strip() if rest else "", name in BY_NAME)


async def run(c: SlashContext, cmd: Command) -> str | None:
    """Run one slash command; "exit" ends the session."""
    entry = BY_NAME.get(cmd.name) if cmd.known else None
    if entry is None:
        c.r.error(t("unknown_command", cmd="/" + cmd.name))
        return None
    return await entry.handler(c, cmd.arg)


def help_text(provider_help: str = "") -> str:
    """Every entry, one line each, in the current UI language; first `provider_help` (which model answers)."""
    rows = [provider_help] if provider_help else []
    for e in TABLE:
        rows.append(pad(f"  /{e.name} {e.shown_hint}", HELP_COLUMN) + t(e.help_key))
    return "\n".join(rows)


def pad(text: str, cells: int) -> str:
    """ljust by terminal cells: Hangul and other wide characters take two."""
    return text + " " * max(0, cells - cell_len(text))
