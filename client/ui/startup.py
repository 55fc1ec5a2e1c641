"""The chat's start, with everything that can overlap overlapping (issues 30, 41).

The database is opened before anything starts (client/ui/cli.py: a bad --db is one line before
any model or server runs). Then the MCP servers start in the background, each on its own
(client/engine/mcp/starting.py). At a terminal nothing waits for them, nor for the key check:
the prompt comes at once and the bottom toolbar shows the servers still starting. The first request
already carries every tool known before its server is up (the bundled server's, shipped with the
client; any other's last listing, saved per user: client/engine/mcp/saved_tools.py); a message sent
while a server seen for the first time starts waits for it up to a short grace
(MCP_CHAT_STARTUP_GRACE, 3 s: Settings.tuning), then goes without it, saying so in one line, and its tools join the
next request once it is up. A
one-shot (-p), piped run or --require-tools waits for every server (each up to its start-up
timeout) before anything is sent, so scripts stay deterministic.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from client.core.config import Settings
from client.core.secrets import remember, settings_secrets
from client.ui import early_prompt
from client.ui.i18n import t

if TYPE_CHECKING:
    from client.engine.frontend import Frontend
    from client.engine.mcp.features import ClientFeatures
    from client.engine.mcp.gate import PermissionGate
    from client.engine.mcp.hub import ToolHub
    from client.engine.mcp.server import ServerConn
    from client.engine.mcp.starting import ServerFleet
    from client.engine.models import Models
    from client.engine.providers import Runtime
    from client.engine.session import ChatSession
    from client.engine.store import Store
    from client.ui.line_reader import LineReader
    from client.ui.render import Renderer
    from client.ui.tui import TtyReader

EXIT_OK = 0
SPAWN_WAIT = 2.0  # -p, pipes: seconds at most for the MCP servers' processes to start before the model is built


async def chat(settings: Settings, runtime: Runtime, specs: list, store: Store) -> int:
    """The chat on an open store (the caller opened it before anything started and closes it)."""
    from client.engine.mcp.hub import ToolHub
    from client.engine.mcp.permissions import Permissions
    from client.engine.mcp.saved_approvals import SavedApprovals, approvals_path
    from client.engine.mcp.saved_tools import SavedTools, tools_dir
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
    saved_approvals = SavedApprovals(approvals_path(settings.dirs.config, settings.user))
    permissions = Permissions(settings.yes, saved_approvals, frontend, secrets)

    def current_models() -> Models:  # sampling asks for the model only once a server asks, long after it is built
        return models

    features = client_features(settings, current_models, frontend)  # e.g. an OAuth login URL at start-up
    # --debug: stdio servers' stderr shown line by line, cleaned and masked like everything we print
    errlog = line_pipe(_server_stderr) if settings.debug else None
    saved = SavedTools(settings.user, tools_dir(settings.dirs.cache))  # each server's last listing: offered before it is up, checked at each call
    hub = ToolHub(specs, settings.debug, permissions, features, frontend, errlog=errlog, saved=saved)
    # at a terminal nothing waits for a server: each joins the next request once it is up (issue 41);
    # -p, piped input and --require-tools wait for them all (scripts stay deterministic)
    lazy = renderer.interactive and settings.prompt is None and not settings.require_tools
    hub.fleet.start()  # every server in the background, each on its own (client/engine/mcp/starting.py)
    key_check: asyncio.Task | None = None
    try:
        from client.engine.agent import check_key

        if lazy:  # the key is checked while the user reads and types; a refusal ends the chat (Repl.watch)
            key_check = asyncio.get_running_loop().create_task(check_key(settings, runtime), name="key-check")
        else:
            await hub.fleet.opened(SPAWN_WAIT)  # their processes start (own imports, another core) while the model is built
        models = Models(settings, runtime)  # the one owner of the model: sampling, summaries, memory and the agent read it
        if key_check is None:
            await check_key(settings, runtime)  # rejected: exit 2 before anything is sent
        if not lazy:
            await hub.fleet.connect()
            _report(hub.fleet, settings, renderer)
        session, tools = wire_session(settings, store, hub, models, renderer, features.drain_journal)
        from client.ui.repl import Repl

        repl = Repl(session, hub, renderer, frontend, reader, tools_changed=tools.refresh)
        if key_check is not None:
            repl.watch(key_check)
        if lazy and isinstance(reader, TtyReader):
            from client.ui.mcp_view import starting_line

            reader.status = lambda: starting_line(hub.fleet)  # the bottom toolbar while servers start
        early_prompt.erase()  # the chat's own lines and prompt take its place (client/ui/early_prompt.py)
        for path in saved.take_problems():  # ignored: one line each
            renderer.notice(t("tools_cache_bad", path=str(path)), True)
        try:
            return await repl.run()
        except EOFError:
            return EXIT_OK
        finally:
            await session.close()  # background memory work stops before the store closes
    finally:
        if key_check is not None and not key_check.done():
            key_check.cancel()
        await hub.fleet.aclose()
        if errlog is not None:
            errlog.close()  # the line pump ends once the servers let go of their ends


def make_reader(settings: Settings, renderer: Renderer) -> TtyReader | LineReader | None:
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


def wire_session(settings: Settings, store: Store, hub: ToolHub, models: Models, renderer: Renderer,
                 journal: Callable[[], list[dict]] | None = None) -> tuple[ChatSession, _Tools]:
    """The session over the hub's tools as they are now, every tool call through the permission
    gate, a call to a tool a starting server brings waiting for it (client/engine/late_tools.py);
    and the per-turn hook that gives the agent the tools that came up since."""
    from client.engine.build import build_session
    from client.engine.late_tools import LateTools
    from client.engine.mcp.gate import PermissionGate

    gate = PermissionGate(hub.authorize, hub.tool_of, journal)
    tools = _Tools(hub, settings, renderer, models, store, gate)
    session = build_session(settings, store, hub.tools, models=models, gate=gate, late=LateTools(hub.late_tool))
    tools.attached = hub.version
    tools.tell_refused()
    return session, tools


def _report(fleet: ServerFleet, settings: Settings, renderer: Renderer) -> None:
    """One line per server that did not start (the others keep their tools); with --require-tools
    those lines end the run (RequiredToolsFailed: exit code 1, the JSON object's error)."""
    from client.ui.failures import RequiredToolsFailed

    fleet.take_failures()  # reported here, not again before the first turn
    if settings.require_tools and fleet.failed():
        raise RequiredToolsFailed([t("mcp_required", name=s.spec.name, target=s.spec.where, err=s.error) for s in fleet.failed()])
    _tell_failed(fleet.failed(), renderer)


class _Tools:
    """The MCP servers of a session, coming up while the user reads and types."""

    def __init__(self, hub: ToolHub, settings: Settings, renderer: Renderer, models: Models, store: Store, gate: PermissionGate) -> None:
        self.hub, self.s, self.r = hub, settings, renderer
        self.models, self.store, self.gate = models, store, gate
        self.attached = -1  # the hub's tool-list version the agent was built over
        self.told: set[str] = set()  # tools already named as too big to offer
        self.waited: set[str] = set()  # servers a message already waited for (each once)

    async def _grace(self) -> None:
        """A message waits for the servers whose tools are not known yet, up to the grace (the
        spinner's timer runs); those still starting after it are named in one line."""
        waiting = [n for n in self.hub.fleet.unknown() if n not in self.waited]
        if not waiting:
            return
        self.waited.update(waiting)
        grace = self.s.tuning.startup_grace
        if grace > 0:
            self.r.waiting(t("spin_mcp_wait", names=", ".join(waiting)))
            await self.hub.fleet.wait(waiting, grace)
            self.r.waiting(t("spin_thinking"))
        late = [n for n in self.hub.fleet.unknown() if n in waiting]
        if late:
            self.r.notice(t("mcp_sent_without", names=", ".join(late)))

    async def refresh(self) -> None:
        """Before every turn: servers seen for the first time still starting are waited for, once,
        up to the grace; failed starts reported (once each), servers whose tools changed (or whose
        listing expired) listed again, and the tools that are ready now become the agent's."""
        await self._grace()
        _tell_failed(self.hub.fleet.take_failures(), self.r)  # since the last report
        await self.hub.fleet.refresh()  # the hub's tools follow (version)
        if self.hub.version != self.attached:
            self.attached = self.hub.version
            self.models.attach(self.hub.tools, self.store.checkpointer, self.gate)
        self.tell_refused()  # after a change of tools or of model (/model)

    def tell_refused(self) -> None:
        """One line per tool whose schema alone is too big to offer (client/engine/agent.py), once each;
        the session goes on without it."""
        stack = self.models.current
        for name, tokens in stack.mw.refused_tools if stack.mw is not None else ():
            if name not in self.told:
                self.told.add(name)
                server = self.hub.tool_of(name)[0] if name in self.hub.owner else "?"
                self.r.notice(t("tool_schema_too_big", name=name, server=server, tokens=tokens,
                                budget=stack.budget), True)


def _tell_failed(servers: list[ServerConn], renderer: Renderer) -> None:
    """One line per server whose start failed (retry: /mcp enable NAME)."""
    for server in servers:
        if server.state == "unconfigured":  # bundled search, no Naver keys
            renderer.notice(t("search_no_keys"), True)
        else:
            renderer.error(t("mcp_server_failed", name=server.spec.name, target=server.spec.where, err=server.error))


def client_features(settings: Settings, models: Models | Callable[[], Models], frontend: Frontend) -> ClientFeatures:
    """What servers may ask of us: --yes answers, the sampling model (the session's, whichever
    it is when asked), the roots; `frontend` shows their notices and asks the questions."""
    from client.engine.mcp.features import ClientFeatures
    from client.engine.mcp.sampling import ModelSampler

    return ClientFeatures(yes=settings.yes, sampler=ModelSampler(models), user=settings.user, frontend=frontend,
                          data=settings.dirs.data, headless=settings.tuning.oauth_headless,
                          roots=[Path(r) for r in settings.roots])  # never the cwd unasked
