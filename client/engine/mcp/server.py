"""One MCP server: a long-lived session owned by its own task.

The transport context managers (anyio task groups) are entered and left in
one owner task, so a dying server (its transport's task group crashing) never
cancels the caller; callers race each request against the owner's end.

Which revision a server speaks is found at connect (client/engine/mcp/era.py): 2026-07-28
(`server/discover`, stateless requests with `_meta`, multi-round-trip input) or the 2025
`initialize` handshake, kept as `revision`. The same callbacks (features.py) answer a 2025 server's
requests and a 2026 server's `InputRequiredResult`. Nothing here knows LangChain (hub.py does).

Over ~300 lines on purpose: connect, reconnect (a forgotten session), the call with its
cancellation and the shutdown share the owner task's state; split, they would share it by hand.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from contextlib import AsyncExitStack, nullcontext
from typing import IO, Callable

import anyio
import httpx2
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

from client.core.childenv import child_env
from client.core.faults import one_line
from client.engine.mcp import era
from client.engine.mcp.bounded_http import LEGACY_SSE_CAP, PIECE, bounded
from client.engine.mcp.bounded_stdio import bounded_stdio_client
from client.engine.mcp.features import ClientFeatures, client_info
from client.engine.mcp.listing import Listing
from client.engine.mcp.oversize import MAX_MESSAGE_BYTES
from client.engine.mcp.results import error_result
from client.engine.mcp.specs import ServerSpec, names_directories

START_TIMEOUT = 30.0  # seconds to start and list tools (npx may download first)
RESTART_TIMEOUT = 10.0
CALL_TIMEOUT = 300.0  # seconds per tool call unless the entry sets "timeout"
RETRY_AFTER = 1.0  # seconds between reconnect attempts of a dead server
STOP_TIMEOUT = 5.0
HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)  # a server may hold a response stream open


class ServerGone(Exception):
    """The server is not connected (died, or cannot be reached again)."""


class ServerConn:
    def __init__(self, spec: ServerSpec, features: ClientFeatures | None = None, errlog: IO[str] | None = None) -> None:
        """`errlog`: where a stdio server's stderr goes (None: a private file per start, whose last
        line explains a failed start)."""
        self.spec = spec
        self.errlog = errlog
        self.features = features  # elicitation, sampling, roots (None: clientInfo only)
        if features is not None and names_directories(spec):
            features.own_dirs.add(spec.name)
        self.state = "idle"  # idle | connecting | connected | dead | failed | closed
        self.error: str | None = None
        self.tools: list[types.Tool] = []  # as last listed; before that, as saved or shipped (hub.py)
        self.live = False  # `tools` came from this server in this process (a call is checked against them)
        self.generation = 0  # bumped whenever `tools` is listed anew
        self.session: ClientSession | None = None
        self.revision: era.Revision | None = None  # the revision it speaks, decided at connect (era.py)
        self.listing = Listing()  # when to list again (ttlMs, subscriptions/listen, list_changed)
        self._dispatcher: JSONRPCDispatcher | None = None
        self._http_status: str | None = None  # the last HTTP answer when it was an error (HTTP 401 ...)
        self.restarts = 0
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()
        self._ended = asyncio.Event()
        self.opened = asyncio.Event()  # the transport is up (a stdio server's process runs), or it failed
        self._lock = asyncio.Lock()
        self._last_attempt = 0.0
        self._deadline: float | None = None
        self._errlog: IO[str] | None = None
        self.logging_in = False  # an OAuth login is waiting for the user

    # -- lifecycle -------------------------------------------------------------
    async def start(self, timeout: float = START_TIMEOUT) -> bool:
        """Connect and list tools; False (with `error`) when that fails."""
        if self.spec.missing:  # every tool it offers could only fail: never started, never offered
            self.state, self.error = "unconfigured", ", ".join(self.spec.missing)
            return False
        self._stop, self._ready, self._ended = asyncio.Event(), asyncio.Event(), asyncio.Event()
        self.opened.clear()  # the same event: ToolHub.opened may be waiting on it already
        self.state, self.error, self.listing = "connecting", None, Listing()
        self._last_attempt = time.monotonic()
        self._deadline = self._last_attempt + timeout  # a slow server is probed again until then (era.py)
        self._task = asyncio.create_task(self._own(), name=f"mcp-server:{self.spec.name}")
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except asyncio.TimeoutError:
            if self.logging_in:  # the user is logging in: give them the whole OAuth flow time
                from client.engine.mcp.oauth import FLOW_TIMEOUT

                try:
                    await asyncio.wait_for(self._ready.wait(), FLOW_TIMEOUT)
                    return self.state == "connected"
                except asyncio.TimeoutError:
                    pass
            self.error = f"no answer within {timeout:g}s"
            await self.stop()
            self.state = "failed"
        return self.state == "connected"

    async def stop(self) -> None:
        """Leave the session and end the process/connection (in the owner task)."""
        task, self._task = self._task, None
        self._stop.set()
        if task is not None and not task.done():
            if not self._ready.is_set():  # still starting: nothing to leave gracefully, end it now
                task.cancel()
            try:
                await asyncio.wait_for(asyncio.shield(task), STOP_TIMEOUT)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - shutting down anyway
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if self._errlog is not None and self._errlog is not self.errlog:
            self._errlog.close()
        self._errlog = None

    async def aclose(self) -> None:
        await self.stop()
        self.state = "closed"

    async def _own(self) -> None:
        try:
            async with AsyncExitStack() as stack:
                session = await stack.enter_async_context(await self._open(stack))
                self.opened.set()
                self.revision = revision = await era.negotiate(session, self.spec.protocol, self._deadline)
                self._listed(await self.listing.tools(session, revision))
                self.live = True
                self.session, self.state = session, "connected"
                self._ready.set()
                watch = asyncio.ensure_future(self.listing.watch(session, revision))
                try:
                    await self._stop.wait()
                finally:
                    watch.cancel()
                    await asyncio.gather(watch, return_exceptions=True)
        except BaseException as e:  # noqa: BLE001 - recorded; the chat goes on
            if not self._stop.is_set():
                own = self._errlog if self._errlog is not self.errlog else None
                self.error = self.spec.redact(_with_stderr(self._why(e), own))
        finally:
            was = self.state
            self.session = None
            if not self._stop.is_set() or was != "connected":
                self.state = "dead" if was == "connected" else "failed"
            else:
                self.state = "idle"
            self.opened.set()
            self._ready.set()
            self._ended.set()

    async def _open(self, stack: AsyncExitStack) -> ClientSession:
        s = self.spec
        if s.transport == "stdio":
            self._errlog = self.errlog or tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
            params = StdioServerParameters(command=s.command, args=s.args, env=child_env(os.environ, given=s.env), cwd=s.cwd)
            # our reader: one message is read up to a cap, never whole (bounded_stdio.py)
            read, write = await stack.enter_async_context(bounded_stdio_client(params, errlog=self._errlog))
        elif s.transport == "sse":
            from mcp.client.sse import sse_client  # only for servers that need it (client/engine/mcp/sdk.py)

            def bounded_client(headers=None, timeout=None, auth=None) -> httpx2.AsyncClient:  # the SDK's, bounded
                return httpx2.AsyncClient(headers=headers, timeout=timeout or HTTP_TIMEOUT, auth=auth,
                                          event_hooks={"response": [bounded(LEGACY_SSE_CAP)]})

            auth = await self._oauth(stack)
            read, write = await stack.enter_async_context(sse_client(
                s.url, headers=s.headers or None, auth=auth, httpx_client_factory=bounded_client))
        else:
            from mcp.client.streamable_http import streamable_http_client

            auth = await self._oauth(stack)
            http = await stack.enter_async_context(httpx2.AsyncClient(
                headers=s.headers or None, auth=auth, timeout=HTTP_TIMEOUT,
                event_hooks={"response": [self._note, bounded()]}))  # every body read up to a cap (bounded_http.py)
            read, write = await stack.enter_async_context(streamable_http_client(
                s.url, http_client=http, max_sse_event_size=MAX_MESSAGE_BYTES + PIECE))
        # our own dispatcher: a 2025 task-only tool is created through it (era.call_as_task)
        self._dispatcher = JSONRPCDispatcher(read, write)
        asks = self.features.callbacks(self.spec.name) if self.features else {"client_info": client_info()}
        return ClientSession(dispatcher=self._dispatcher, message_handler=self.listing.on_message, **asks)  # list_changed

    async def _oauth(self, stack: AsyncExitStack):  # -> httpx2.Auth | None
        """OAuth 2.1 (client/engine/mcp/oauth.py) for a remote server, unless its entry says "oauth": false."""
        f, s = self.features, self.spec
        if f is None or s.oauth is None or f.data is None:
            return None
        from client.engine.mcp.oauth import LoopbackCallback, oauth_provider, token_dir

        callback = LoopbackCallback(int(s.oauth.get("redirectPort") or 0))
        stack.push_async_callback(callback.aclose)

        def on_login(active: bool) -> None:
            self.logging_in = active

        async def confirm(url: str) -> bool | None:  # credentials to an endpoint off the authorization server
            return await f.frontend.confirm("oauth_endpoint", s.name, url)

        return await oauth_provider(s.url, token_dir(f.data, f.user), s.oauth, callback,
                                    lambda url: f.show_login(s.name, url), on_login, confirm, f.headless)

    async def _note(self, response: httpx2.Response) -> None:
        """The SDK 2.x turns a refused HTTP request into a JSON-RPC error without its status: keep it."""
        code = response.status_code
        self._http_status = f"HTTP {code} {response.reason_phrase}".strip() if code >= 400 else None

    def _why(self, err: BaseException) -> str:
        text = _one_line(err)
        while isinstance(err, BaseExceptionGroup) and err.exceptions:
            err = err.exceptions[0]
        if self._http_status and isinstance(err, MCPError) and err.code in (types.INTERNAL_ERROR, types.METHOD_NOT_FOUND):
            return f"{self._http_status}: {text}"
        return text

    # -- calls -----------------------------------------------------------------
    async def ensure(self, again: bool = False) -> None:
        """Reconnect a dead server, at most once per RETRY_AFTER (`again`: at once, it forgot our session);
        ServerGone if it stays down."""
        async with self._lock:
            if self.state == "connected" and not again:
                return
            if again or (self.state in ("dead", "failed", "idle") and time.monotonic() - self._last_attempt >= RETRY_AFTER):
                await self.stop()
                self.restarts += 1
                await self.start(RESTART_TIMEOUT)
            if self.state != "connected":
                raise ServerGone(self.error or self.state)

    async def refresh_tools(self) -> bool:
        """List the tools again when the listing is stale (listing.py); True when they changed.
        A failure keeps the old listing: a dead server is found by its next call."""
        session, revision = self.session, self.revision
        if self.state != "connected" or session is None or revision is None or not self.listing.due(revision):
            return False
        try:
            tools = await asyncio.wait_for(self.listing.tools(session, revision), RESTART_TIMEOUT)
        except Exception:  # noqa: BLE001
            return False
        return self._listed(tools)

    def _listed(self, tools: list[types.Tool]) -> bool:
        """Take a listing; True (and a new generation) when it differs from the tools held. The same
        definitions keep the objects held (offered before the server was up: nothing to rebuild)."""
        if [t.model_dump(by_alias=True, exclude_none=True) for t in tools] == \
                [t.model_dump(by_alias=True, exclude_none=True) for t in self.tools]:
            return False
        self.tools, self.generation = tools, self.generation + 1
        return True

    async def call(self, tool: types.Tool, args: dict, progress: era.ProgressFn | None = None) -> types.CallToolResult:
        """One tool call; ServerGone when the server is or goes away during it. A server that no
        longer knows our session (restarted, or it expired the session) never ran the call: the
        connection is made again at once and the call runs on the new session, once."""
        try:
            return await self._call_once(tool, args, progress)
        except _SessionLost:
            await self.ensure(again=True)
        try:
            return await self._call_once(tool, args, progress)
        except _SessionLost as e:
            raise ServerGone(str(e)) from None

    async def _call_once(self, tool: types.Tool, args: dict, progress: era.ProgressFn | None) -> types.CallToolResult:
        await self.ensure()
        session, revision = self.session, self.revision
        if session is None or revision is None:
            raise ServerGone(self.error or "connection closed")
        timeout = self.spec.timeout or CALL_TIMEOUT
        execution = tool.execution
        if execution is not None and execution.task_support == "required" and self._dispatcher is not None \
                and not revision.modern:  # tasks left the spec in 2026-07-28
            request = asyncio.wait_for(era.call_as_task(session, revision, self._dispatcher, tool.name, args, progress), timeout)
        else:
            request = era.call_tool(session, tool.name, args, timeout, progress)
        with self.features.capped(self.spec.name) if self.features else nullcontext(asyncio.Event()) as capped:
            call = asyncio.ensure_future(request)
            ended = asyncio.ensure_future(self._ended.wait())
            over = asyncio.ensure_future(capped.wait())  # its sampling reached the turn's limit (features.py)
            try:
                await asyncio.wait({call, ended, over}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                ended.cancel()
                over.cancel()
                if not call.done():
                    call.cancel()
                    await asyncio.gather(call, return_exceptions=True)
        if capped.is_set() and self.features is not None:
            return error_result(self.features.capped_text())
        if call.cancelled():
            raise ServerGone(self.error or "connection closed")
        err = call.exception()
        if err is None:
            return call.result()
        if _session_lost(err):
            raise _SessionLost(_one_line(err))
        if not self._ended.is_set() and not _connection_lost(err):
            # The server answered (protocol error, timeout, bad structured content): still alive.
            return error_result(self.spec.redact(self._why(err)))
        self.error = self.spec.redact(self._why(err))
        await self.stop()
        self.state = "dead"
        raise ServerGone(self.error)


class _SessionLost(Exception):
    """The server answered that our session does not exist (the call did not run)."""


_NO_SESSION = {"session terminated", "session not found"}


def _session_lost(err: BaseException) -> bool:
    """HTTP 404 on our session id (streamable HTTP, the 2025 revisions): the SDK's own stand-in
    "Session terminated", or the server's JSON-RPC body, which the SDK now passes on: "Session not
    found" (Python SDK, INVALID_REQUEST; TypeScript SDK, -32001). Not "Session terminated before the
    request completed": that call may have run."""
    if not isinstance(err, MCPError):
        return False
    text = (err.message or "").strip().rstrip(".").lower()
    return text in _NO_SESSION and err.code in (types.INVALID_REQUEST, -32001)


def _connection_lost(err: BaseException) -> bool:
    if isinstance(err, MCPError):
        return err.code == types.CONNECTION_CLOSED
    return isinstance(err, (OSError, httpx2.TransportError, anyio.ClosedResourceError,
                            anyio.BrokenResourceError, anyio.EndOfStream, BaseExceptionGroup))


def _one_line(e: BaseException) -> str:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    if isinstance(e, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)):
        return "connection closed"
    text = one_line(e)
    if text == type(e).__name__:
        return text
    return text if isinstance(e, (OSError, MCPError)) else f"{type(e).__name__}: {text}"


def line_pipe(sink: Callable[[str], None]) -> IO[str]:
    """A file children can write their stderr to (an `errlog`); each line reaches `sink` (on a
    daemon thread: --debug shows the lines cleaned and masked). The thread ends once every
    writer has let go of the pipe."""
    import threading

    read_fd, write_fd = os.pipe()

    def pump() -> None:
        with os.fdopen(read_fd, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                try:
                    sink(line.rstrip("\n"))
                except Exception:  # noqa: BLE001 - a display problem never stops the server
                    pass

    threading.Thread(target=pump, name="mcp-stderr", daemon=True).start()
    return os.fdopen(write_fd, "w", encoding="utf-8")


def _with_stderr(text: str, log: IO[str] | None) -> str:
    """Add the server's last stderr line (why a child failed to start), from our own file."""
    if log is None:
        return text
    try:
        log.flush()
        log.seek(0)
        tail = [ln.strip() for ln in log.read()[-4000:].splitlines() if ln.strip()]
    except (OSError, ValueError):
        return text
    return f"{text} (stderr: {tail[-1][:200]})" if tail else text
