"""The chat's start, with everything that can overlap overlapping (issue 30).

The MCP servers are spawned first and connect in the background: the bundled stdio search
server takes about a second to answer (or a few ms when its pre-imported process serves it),
which is now spent while the key is probed, the database opened and the models built. Only
then does the chat wait for the servers, before anything is printed, so the output reads as
before. At a terminal the prompt does not wait for the servers at all: their tools join the
agent when they are ready, and the first turn waits for them only if they are not yet.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from client.core.config import Settings
from client.core.secrets import settings_secrets
from client.ui.i18n import t

EXIT_OK, EXIT_RUNTIME = 0, 1


async def chat(settings: Settings, specs: list) -> int:
    from client.engine.mcp import ToolHub
    from client.engine.mcp.gate import PermissionGate
    from client.engine.mcp.permissions import Permissions
    from client.engine.mcp.saved_approvals import SavedApprovals, approvals_path
    from client.ui.render import Renderer
    from client.ui.tui import make_renderer

    # rich at a terminal, plain when piped; -p always plain (one answer, script-friendly)
    renderer = make_renderer() if settings.prompt is None else Renderer()
    permissions = Permissions(settings.yes, SavedApprovals(approvals_path(settings.user)), secrets=settings_secrets(settings))
    features = client_features(settings, None)  # the sampling model is set below, before any await
    features.on_event = lambda key, fmt: renderer.notice(t(key, **fmt))  # e.g. an OAuth login URL at start-up
    from client.engine.mcp.oauth import headless

    if not headless():
        import webbrowser

        features.open_url = lambda url: webbrowser.open(url, new=2) if renderer.interactive else None
    hub = ToolHub(specs, settings.debug, permissions, features)  # the REPL injects the terminal approver
    connecting = asyncio.get_running_loop().create_task(hub.connect(), name="mcp-connect")
    store = None
    try:
        from client.engine.agent import check_key
        from client.engine.mcp.sampling import make_sampler
        from client.engine.providers import build_model
        from client.engine.store import open_store

        features.sampler = make_sampler(build_model(settings, with_tools=False, role="summary"), settings.model)
        key_checked = asyncio.ensure_future(check_key(settings))  # a rejected key: exit 2 before any prompt
        try:
            store = await open_store(settings.db)
        finally:
            await key_checked
        gate = PermissionGate(hub.authorize, hub.tool_of, features.drain_journal)
        background = renderer.interactive and settings.prompt is None and not settings.require_tools
        if background:
            session = _build(settings, store, [], gate)
            tools = _Tools(connecting, hub, settings, renderer, session, gate)
        else:
            await connecting
            if _report(hub, settings, renderer):
                return EXIT_RUNTIME
            session = _build(settings, store, hub.tools, gate)
            tools = None
        from client.ui.repl import Repl

        repl = Repl(settings, session, hub, renderer)
        repl.tools_ready = tools.wait if tools else None
        try:
            return await repl.run()
        except EOFError:
            return EXIT_OK
    finally:
        if not connecting.done():
            connecting.cancel()
        await asyncio.gather(connecting, return_exceptions=True)
        await hub.aclose()
        if store is not None:
            await store.close()


def _build(settings: Settings, store: Any, tools: list, gate: Any) -> Any:
    from client.engine.build import build_session

    return build_session(settings, store, tools, gate=gate)


def _report(hub: Any, settings: Settings, renderer: Any) -> bool:
    """One line per server that did not start (the others keep their tools); True: stop (--require-tools)."""
    for server in hub.failed():
        if server.state == "unconfigured" and not settings.require_tools:  # bundled search, no Naver keys
            renderer.notice(t("search_no_keys"), True)
            continue
        key = "mcp_required" if settings.require_tools else "mcp_server_failed"
        renderer.error(t(key, name=server.spec.name, target=server.spec.where, err=server.error))
    return bool(hub.failed()) and settings.require_tools


class _Tools:
    """The MCP servers of an interactive session, connecting while the user reads and types."""

    def __init__(self, connecting: asyncio.Task, hub: Any, settings: Settings, renderer: Any, session: Any,
                 gate: Any) -> None:
        self.connecting, self.hub, self.s, self.r, self.session, self.gate = connecting, hub, settings, renderer, session, gate
        self.attached = False

    async def wait(self) -> None:
        """Before a turn: the servers are connected and their tools are the agent's."""
        if self.attached:
            return
        await asyncio.shield(self.connecting)
        self.attached = True
        _report(self.hub, self.s, self.r)
        if self.hub.tools:
            from client.engine.models import build_stack

            agent, mw, summarizer = build_stack(self.s, self.hub.tools, self.session.store.checkpointer, self.gate)
            self.session.agent, self.session.mw, self.session.summarizer = agent, mw, summarizer
            if self.session.memory is not None:
                self.session.memory.model = summarizer


def client_features(settings: Settings, model: object):  # -> ClientFeatures
    """What servers may ask of us: --yes answers, the sampling model, the roots; the REPL adds the forms."""
    from client.engine.mcp.features import ClientFeatures
    from client.engine.mcp.sampling import make_sampler

    sampler = make_sampler(model, settings.model) if model is not None else None
    return ClientFeatures(yes=settings.yes, sampler=sampler,  # type: ignore[arg-type]
                          budget=settings.max_input_tokens, max_output=settings.max_output_tokens,
                          roots=[Path(r) for r in settings.roots], user=settings.user)  # never the cwd unasked
