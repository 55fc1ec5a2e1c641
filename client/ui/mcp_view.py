"""MCP hub data in words: tool progress lines and the /tools, /servers listings (translated here)."""

from __future__ import annotations

from client.engine.mcp.hub import ToolHub, ToolProgress
from client.engine.mcp.server import ServerConn
from client.engine.mcp.starting import ServerFleet
from client.ui.i18n import t


def progress_line(p: ToolProgress) -> str:
    step = f"{p.done:g}/{p.total:g}" if p.total else f"{p.done:g}"
    if p.state == "running":
        msg = f" - {' '.join(p.message.split())[:80]}" if p.message else ""
        return t("mcp_progress", tool=p.tool, step=step, msg=msg)
    return t("mcp_progress_done" if p.state == "done" else "mcp_progress_stopped", tool=p.tool, step=step)


def _state(server: ServerConn) -> str:
    text = t(f"mcp_state_{server.state}")
    return f"{text}: {server.error}" if server.error and server.state != "connected" else text


def describe_tools(hub: ToolHub) -> list[str]:
    if not hub.fleet.servers and not hub.fleet.disabled:
        return [t("mcp_no_servers")]
    lines: list[str] = []
    for s in hub.fleet.servers:
        names = hub.tools_of(s)
        lines.append(t("mcp_tools_server", name=s.spec.name, state=_state(s), n=len(names)))
        for name, tool in names:
            shown = name if name == tool.name else f"{name} ({tool.name})"
            desc = (tool.description or tool.title or "").strip().splitlines()
            lines.append(f"  {shown}: {desc[0][:100] if desc else ''}".rstrip(": "))
    lines += [t("mcp_tools_server", name=spec.name, state=t("mcp_state_disabled"), n=0) for spec in hub.fleet.disabled]
    return lines


def describe_servers(hub: ToolHub) -> list[str]:
    if not hub.fleet.servers and not hub.fleet.disabled:
        return [t("mcp_no_servers")]
    lines = []
    for s in hub.fleet.servers:
        line = t("mcp_server_row", name=s.spec.name, state=_state(s), transport=s.spec.transport,
                 shown=s.spec.shown, n=len(hub.tools_of(s)))
        if s.revision and s.state == "connected":  # the revision it speaks: 2026-07-28 or a 2025 one
            line += t("mcp_server_protocol", version=s.revision.version)
        if s.restarts:
            line += t("mcp_server_restarts", n=s.restarts)
        lines.append(line)
    lines += [t("mcp_server_row", name=spec.name, state=t("mcp_state_disabled"), transport=spec.transport,
                shown=spec.shown, n=0) for spec in hub.fleet.disabled]
    return lines


TIMER_AFTER = 3.0  # seconds before the status line shows how long the servers have been starting
SHOWN_NAMES = 4  # names on the status line; the rest as "+N"


def starting_line(fleet: ServerFleet) -> str | None:
    """The bottom toolbar at a terminal while servers start: their names, a timer after a few
    seconds; None once none is starting."""
    starting = fleet.starting()
    if not starting:
        return None
    names = ", ".join(name for name, _ in starting[:SHOWN_NAMES])
    if len(starting) > SHOWN_NAMES:
        names += f" +{len(starting) - SHOWN_NAMES}"
    oldest = starting[0][1]
    if oldest < TIMER_AFTER:
        return t("mcp_starting", names=names)
    return t("mcp_starting_timer", names=names, secs=int(oldest))
