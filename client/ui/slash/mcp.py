"""MCP commands (/mcp /tools /servers /permissions /prompts /prompt /resources /roots) and @server:uri mentions."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from client.core.context.budget import estimate_text_tokens
from client.engine.mcp.specs import ServerSpec
from client.engine.mcp.catalog import (CatalogError, list_prompts, list_resources, mentions, parse_prompt_call,
                                       read_resource, run_prompt)
from client.ui.i18n import t
from client.ui.mcp_view import describe_servers, describe_tools
from client.ui.slash.base import SlashContext

if TYPE_CHECKING:
    from client.core.config import Settings
    from client.engine.mcp.hub import ToolHub
    from client.ui.render import Renderer

ATTACH_SHARE = 4  # one message's attachments may use at most 1/4 of the request budget


def _server(hub: ToolHub, name: str):  # -> ServerConn | None
    return next((s for s in hub.fleet.servers if s.spec.name == name), None)


async def tools(c: SlashContext, arg: str) -> None:
    for line in describe_tools(c.hub):
        c.r.line(line)


async def servers(c: SlashContext, arg: str) -> None:
    for line in describe_servers(c.hub):
        c.r.line(line)


async def mcp(c: SlashContext, arg: str) -> None:
    """/mcp: every server with its state and tool count; /mcp disable|enable NAME for this session.
    At a terminal an enabled server starts in the background; in a pipe it is waited for (up to its
    start-up timeout), so a script's next line sees its tools."""
    words = arg.split()
    if not words:
        await servers(c, arg)
        return
    if len(words) != 2 or words[0].lower() not in ("enable", "disable"):
        c.r.error(t("mcp_usage"))
        return
    op, name = words[0].lower(), words[1]
    found = c.hub.fleet.find(name)
    if found is None:
        c.r.error(t("mcp_unknown", name=name))
        return
    if op == "disable":
        n = len(c.hub.tools_of(found)) if not isinstance(found, ServerSpec) else 0
        c.r.line(t("mcp_disabled_now", name=name, n=n) if await c.hub.fleet.disable(name) else t("mcp_already_off", name=name))
        return
    task = c.hub.fleet.enable(name)
    if task is None:
        c.r.line(t("mcp_already_on", name=name))
        return
    c.r.line(t("mcp_enabling", name=name))
    if not c.r.interactive:
        await task
    server = _server(c.hub, name)
    if task.done() and server is not None:
        if server.state == "connected":
            c.r.line(t("mcp_enabled_now", name=name, n=len(c.hub.tools_of(server))))
        elif server in c.hub.fleet.failures:  # reported here, once
            c.hub.fleet.failures.remove(server)
            c.r.error(t("mcp_server_failed", name=name, target=server.spec.where, err=server.error))


async def permissions(c: SlashContext, arg: str) -> None:
    perms = c.hub.permissions
    if arg.lower() == "reset":
        n, m = perms.reset()
        c.r.line(t("perm_reset", session=n, saved=m))
        return
    if arg:
        c.r.error(t("perm_bad_arg"))
        return
    info = perms.listing(c.hub.permission_servers())
    if info.yes:
        c.r.line(t("perm_list_yes"))
    none = t("perm_none")
    c.r.line(t("perm_list_session", items=", ".join(f"{k.server}/{k.tool}" for k in info.session) or none))
    c.r.line(t("perm_list_saved", path=info.saved_path,
               items=", ".join(f"{k.server}/{k.tool}" for k in info.saved) or none))
    for server, names in info.always_allow.items():
        c.r.line(t("perm_list_always_allow", server=server, items=", ".join(names)))
    for server, names in info.read_only.items():
        c.r.line(t("perm_list_read_only", server=server, items=", ".join(names)))
    c.r.line(t("perm_list_ask"))


async def prompts(c: SlashContext, arg: str) -> None:
    found = await list_prompts(c.hub.fleet.servers)
    if not found:
        c.r.line(t("prompts_none"))
        return
    for server, mine in _by_server(found):
        c.r.line(t("prompts_server", name=server, n=len(mine)))
        for p in mine:
            args = " ".join(f"{a.name}={'<' + a.name + '>' if a.required else '[...]'}" for a in p.arguments or [])
            desc = (p.description or p.title or "").strip().splitlines()
            c.r.line(f"  /prompt {server}:{p.name} {args}".rstrip() + (f"  - {desc[0][:80]}" if desc else ""))


async def prompt(c: SlashContext, arg: str) -> None:
    call = parse_prompt_call(arg)
    server = _server(c.hub, call.server) if call else None
    if call is None:
        c.r.error(t("prompt_usage"))
        return
    name = f"{call.server}:{call.name}"
    if server is None:
        c.r.error(t("prompt_unknown", name=name))
        return
    known = {p.name: p for sname, p in await list_prompts([server]) if sname == call.server}
    found = known.get(call.name)
    if found is None:
        c.r.error(t("prompt_unknown", name=name))
        return
    missing = [a.name for a in found.arguments or [] if a.required and a.name not in call.args]
    if missing:
        c.r.error(t("prompt_missing", names=", ".join(missing)))
        return
    try:
        messages = await run_prompt(server, call.name, call.args)
    except CatalogError as e:
        c.r.error(t("prompt_failed", name=name, err=str(e)))
        return
    c.r.notice(t("prompt_run", name=name, n=len(messages)))
    if len(messages) == 1 and messages[0][0] == "user":
        text = messages[0][1]
    else:
        text = "\n\n".join(f"[{role}]\n{body}" for role, body in messages)
    if text.strip():
        await c.turn(text)


async def resources(c: SlashContext, arg: str) -> None:
    found = await list_resources(c.hub.fleet.servers)
    if not found:
        c.r.line(t("resources_none"))
        return
    for server, mine in _by_server(found):
        c.r.line(t("resources_server", name=server, n=len(mine)))
        for res in mine:
            kind = f" ({res.mime_type})" if res.mime_type else ""
            c.r.line(f"  @{server}:{res.uri}  {res.name}{kind}")


async def roots(c: SlashContext, arg: str) -> None:
    features = c.hub.fleet.features
    if features is None:
        return
    if arg:
        path = Path(arg).expanduser().resolve()
        if not path.is_dir():
            c.r.error(t("roots_bad", path=arg))
            return
        told = await features.set_roots([*features.roots, path], c.hub.fleet)
        c.r.line(t("roots_changed", n=told))
    c.r.line(t("roots_list", roots=", ".join(str(p) for p in features.roots) or t("roots_none")))


async def with_mentions(hub: ToolHub, s: Settings, r: Renderer, text: str) -> str:
    """The message with every @server:uri resource attached (text; binary described), within the budget."""
    refs = mentions(text, {conn.spec.name for conn in hub.fleet.servers})
    if not refs:
        return text
    left = max(200, s.max_input_tokens // ATTACH_SHARE)
    parts = [text]
    for name, uri in refs:
        ref = f"{name}:{uri}"
        try:
            body, cut = await read_resource(_server(hub, name), uri, left)  # type: ignore[arg-type]
        except CatalogError as e:
            r.error(t("resource_failed", ref=ref, err=str(e)))
            continue
        used = estimate_text_tokens(body)
        left = max(0, left - used)
        r.notice(t("resource_cut" if cut else "resource_attached", ref=ref, tokens=used))
        parts.append(f"[resource @{ref}]\n{body}")
        if left <= 0:
            break
    return "\n\n".join(parts)


def _by_server(found: list) -> list:
    """[(server, item), ...] -> [(server, [items]), ...] in first-seen order."""
    groups: dict[str, list] = {}
    for server, item in found:
        groups.setdefault(server, []).append(item)
    return list(groups.items())
