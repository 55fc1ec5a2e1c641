"""The chat's start, with everything that can overlap overlapping (issue 30).

The database is opened before anything starts (client/ui/cli.py: a bad --db is one line before
any model or server runs). Then the MCP servers are spawned first and connect in the background:
the bundled stdio search server takes about a second to answer (a few ms when its pre-imported
process serves it), which is now spent while the key is probed and the model built. A one-shot or piped run
then waits for the servers before anything is printed, so its output reads as before. At a
terminal the prompt does not wait for them: their tools join the agent when they are ready,
and the first turn waits only if they are not ready yet.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from client.core.config import Settings
from client.core.secrets import remember, settings_secrets
from client.ui.i18n import t

if TYPE_CHECKING:
    from client.engine.frontend import Frontend
    from client.engine.mcp.features import ClientFeatures
    from client.engine.models import Models
    from client.engine.providers import Runtime
    from client.engine.store import Store

EXIT_OK, EXIT_RUNTIME = 0, 1


async def chat(settings: Settings, runtime: Runtime, specs: list, store: Store) -> int:
    """The chat on an open store (the caller opened it before anything started and closes it)."""
    from client.engine.mcp import ToolHub
    from client.engine.mcp.gate import PermissionGate
    from client.engine.mcp.permissions import Permissions
    from client.engine.mcp.saved_approvals import SavedApprovals, approvals_path
    from client.engine.mcp.server import line_pipe
    from client.engine.models import Models
    from client.ui.frontend import TerminalFrontend
    from client.ui.render import Renderer
    from client.ui.tui import TtyReader, make_renderer

    # rich at a terminal, plain when piped; -p always plain (one answer, script-friendly)
    renderer = make_renderer() if settings.prompt is None else Renderer()
    reader = make_reader(settings, renderer)
    # the one way to the screen; it asks with the REPL's reader at a terminal, nobody otherwise
    frontend = TerminalFrontend(renderer, reader.read if isinstance(reader, TtyReader) else None)
    secrets = [*settings_secrets(settings), *([runtime.api_key] if runtime.api_key else [])]
    remember(secrets)  # masked in everything stored or printed from now on (client/core/secrets.py)
    permissions = Permissions(settings.yes, SavedApprovals(approvals_path(settings.user)), frontend, secrets)
    models = Models(settings, runtime)  # the one owner of the model: sampling, summaries, memory and the agent read it
    features = client_features(settings, models, frontend)  # e.g. an OAuth login URL at start-up
    # --debug: stdio servers' stderr shown line by line, cleaned and masked like everything we print
    errlog = line_pipe(_server_stderr) if settings.debug else None
    hub = ToolHub(specs, settings.debug, permissions, features, frontend, errlog=errlog)
    connecting = asyncio.get_running_loop().create_task(hub.connect(), name="mcp-connect")
    try:
        from client.engine.agent import check_key

        await check_key(settings, runtime)  # rejected: exit 2 before any prompt
        gate = PermissionGate(hub.authorize, hub.tool_of, features.drain_journal)
        tools = None
        if renderer.interactive and settings.prompt is None and not settings.require_tools:
            session = _build(settings, store, [], models, gate)
            tools = _Tools(connecting, hub, settings, renderer, models, store, gate)
        else:
            await connecting
            if _report(hub, settings, renderer):
                return EXIT_RUNTIME
            session = _build(settings, store, hub.tools, models, gate)
        from client.ui.repl import Repl

        repl = Repl(session, hub, renderer, frontend, reader)
        repl.tools_ready = tools.wait if tools else None
        try:
            return await repl.run()
        except EOFError:
            return EXIT_OK
        finally:
            await session.close()  # background memory work stops before the store closes
    finally:
        if not connecting.done():
            connecting.cancel()
        await asyncio.gather(connecting, return_exceptions=True)
        await hub.aclose()
        if errlog is not None:
            errlog.close()  # the line pump ends once the servers let go of their ends


def make_reader(settings: Settings, renderer: Any) -> Any:
    """How the chat reads: prompt_toolkit at a terminal, lines from a pipe, nothing with -p."""
    if settings.prompt is not None:
        return None
    if renderer.interactive:
        from client.ui.tui import TtyReader

        return TtyReader(settings.user)
    from client.ui.line_reader import LineReader

    return LineReader()


def _server_stderr(line: str) -> None:
    """--debug: a stdio server's stderr line, cleaned and masked like everything else we print."""
    from client.ui.safe_text import screen

    print(screen(line), file=sys.stderr, flush=True)


def _build(settings: Settings, store: Any, tools: list, models: Models, gate: Any) -> Any:
    from client.engine.build import build_session

    return build_session(settings, store, tools, models=models, gate=gate)


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

    def __init__(self, connecting: asyncio.Task, hub: Any, settings: Settings, renderer: Any, models: Models,
                 store: Any, gate: Any) -> None:
        self.connecting, self.hub, self.s, self.r = connecting, hub, settings, renderer
        self.models, self.store, self.gate = models, store, gate

    async def wait(self) -> None:
        """Before a turn: the servers are connected and their tools are the agent's."""
        await asyncio.shield(self.connecting)
        _report(self.hub, self.s, self.r)
        if self.hub.tools:
            self.models.attach(self.hub.tools, self.store.checkpointer, self.gate)


def client_features(settings: Settings, models: Models, frontend: Frontend) -> ClientFeatures:
    """What servers may ask of us: --yes answers, the sampling model (the session's, whichever
    it is when asked), the roots; `frontend` shows their notices and asks the questions."""
    from client.engine.mcp.features import ClientFeatures
    from client.engine.mcp.sampling import ModelSampler

    return ClientFeatures(yes=settings.yes, sampler=ModelSampler(models), user=settings.user, frontend=frontend,
                          roots=[Path(r) for r in settings.roots])  # never the cwd unasked
