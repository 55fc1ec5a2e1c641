"""MCP slash commands (/prompts, /prompt, /resources, /roots) and @server:uri mentions; mixed into the REPL."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from client.core.context.budget import estimate_text_tokens
from client.ui.i18n import t
from client.engine.mcp.catalog import CatalogError, list_prompts, list_resources, mentions, parse_prompt_call, read_resource, run_prompt

if TYPE_CHECKING:
    from client.core.config import Settings
    from client.engine.mcp import ToolHub
    from client.ui.render import Renderer

ATTACH_SHARE = 4  # one message's attachments may use at most 1/4 of the request budget


class McpSlash:
    s: Settings
    hub: ToolHub
    r: Renderer

    async def turn(self, text: str, **kw: object) -> None: ...

    def _server(self, name: str):  # -> ServerConn | None
        return next((s for s in self.hub.servers if s.spec.name == name), None)

    async def cmd_prompts(self, arg: str) -> None:
        found = await list_prompts(self.hub.servers)
        if not found:
            self.r.line(t("prompts_none"))
            return
        for server, mine in _by_server(found):
            self.r.line(t("prompts_server", name=server, n=len(mine)))
            for p in mine:
                args = " ".join(f"{a.name}={'<' + a.name + '>' if a.required else '[...]'}" for a in p.arguments or [])
                desc = (p.description or p.title or "").strip().splitlines()
                self.r.line(f"  /prompt {server}:{p.name} {args}".rstrip() + (f"  - {desc[0][:80]}" if desc else ""))

    async def cmd_prompt(self, arg: str) -> None:
        call = parse_prompt_call(arg)
        server = self._server(call.server) if call else None
        if call is None:
            self.r.error(t("prompt_usage"))
            return
        if server is None:
            self.r.error(t("prompt_unknown", name=f"{call.server}:{call.name}"))
            return
        known = {p.name: p for name, p in await list_prompts([server]) if name == call.server}
        prompt = known.get(call.name)
        if prompt is None:
            self.r.error(t("prompt_unknown", name=f"{call.server}:{call.name}"))
            return
        missing = [a.name for a in prompt.arguments or [] if a.required and a.name not in call.args]
        if missing:
            self.r.error(t("prompt_missing", names=", ".join(missing)))
            return
        try:
            messages = await run_prompt(server, call.name, call.args)
        except CatalogError as e:
            self.r.error(t("prompt_failed", name=f"{call.server}:{call.name}", err=str(e)))
            return
        self.r.notice(t("prompt_run", name=f"{call.server}:{call.name}", n=len(messages)))
        if len(messages) == 1 and messages[0][0] == "user":
            text = messages[0][1]
        else:
            text = "\n\n".join(f"[{role}]\n{body}" for role, body in messages)
        if text.strip():
            await self.turn(text)

    async def cmd_resources(self, arg: str) -> None:
        found = await list_resources(self.hub.servers)
        if not found:
            self.r.line(t("resources_none"))
            return
        for server, mine in _by_server(found):
            self.r.line(t("resources_server", name=server, n=len(mine)))
            for res in mine:
                kind = f" ({res.mimeType})" if res.mimeType else ""
                self.r.line(f"  @{server}:{res.uri}  {res.name}{kind}")

    async def cmd_roots(self, arg: str) -> None:
        features = self.hub.features
        if features is None:
            return
        if arg:
            path = Path(arg).expanduser().resolve()
            if not path.is_dir():
                self.r.error(t("roots_bad", path=arg))
                return
            told = await features.set_roots([*features.roots, path])
            self.r.line(t("roots_changed", n=told))
        self.r.line(t("roots_list", roots=", ".join(str(p) for p in features.roots)))

    async def with_mentions(self, text: str) -> str:
        """The message with every @server:uri resource attached (text; binary described), within the budget."""
        refs = mentions(text, {s.spec.name for s in self.hub.servers})
        if not refs:
            return text
        left = max(200, self.s.max_input_tokens // ATTACH_SHARE)
        parts = [text]
        for name, uri in refs:
            ref = f"{name}:{uri}"
            server = self._server(name)
            try:
                body, cut = await read_resource(server, uri, left)  # type: ignore[arg-type]
            except CatalogError as e:
                self.r.error(t("resource_failed", ref=ref, err=str(e)))
                continue
            tokens = estimate_text_tokens(body)
            left = max(0, left - tokens)
            self.r.notice(t("resource_cut" if cut else "resource_attached", ref=ref, tokens=tokens))
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
