"""Which MCP revision a server speaks, and the requests whose shape depends on it.

2026-07-28 has no `initialize`: one `server/discover`, then every request stands alone with
`_meta` (the SDK stamps it), and a server that needs the user (a form, the model, the roots)
answers with an `InputRequiredResult` that the client fulfils and retries. A 2025 server is
reached with the `initialize` handshake and asks through its own requests. `negotiate` picks
per server ("auto") or the entry's `"protocol"` pins one: a `Revision`, the one value later code asks. The
same callbacks (client/engine/mcp/features.py) answer both kinds of question, one at a time.

Tasks (SEP-1686) left the spec with 2026-07-28 and the SDK 2.x; `call_as_task` keeps a 2025
server's task-only tools callable.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from functools import partial
from typing import Any, Awaitable, Callable

from mcp import types
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from client.engine.mcp.results import error_result

MODERN = MODERN_PROTOCOL_VERSIONS
LEGACY = "legacy"  # the modes of an entry's "protocol" (client/engine/mcp/entries.py PROTOCOLS)
AUTO = "auto"
MAX_ROUNDS = 10  # InputRequiredResult rounds per request before giving up
MAX_INPUTS = 8  # input requests in one round (each sampling one also counts as a model call of the turn)
TASK_TTL_MS = 10 * 60 * 1000

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True)
class Revision:
    """The MCP revision one connection speaks, decided once at connect (`negotiate`)."""

    version: str  # "2026-07-28", "2025-11-25", ...

    @property
    def modern(self) -> bool:  # 2026-07-28: discover, stateless requests, ttlMs, no tasks, no notifications from us
        return self.version in MODERN


async def negotiate(session: ClientSession, mode: str = AUTO, deadline: float | None = None) -> Revision:
    """Connect: `server/discover` when the server speaks 2026-07-28, else the 2025 handshake.

    Anything short of a usable discover result falls back to `initialize`; only a server that
    says it speaks nothing but modern versions we lack is refused. Network errors propagate.
    A probe that times out (the SDK gives it 10 s) is no answer at all: a server still starting
    (a stdio server reads its input only once it is up) is probed again until `deadline`
    (time.monotonic(); None: no limit here, the caller's start-up timeout ends the wait),
    never taken for a 2025 server, which a modern-only one would refuse.
    """
    while mode != LEGACY:
        try:
            await session.discover()  # adopts the result; retries once at a version the server names
            return Revision(str(session.protocol_version))
        except MCPError as e:
            if e.code == types.REQUEST_TIMEOUT and (deadline is None or time.monotonic() < deadline):
                continue  # its answer to the first probe is dropped by the SDK; the next one is read
            if mode != AUTO or (e.code == types.UNSUPPORTED_PROTOCOL_VERSION and not _handshake_ok(e.data)):
                raise
        except (RuntimeError, ValidationError):  # no mutual modern version, or not a discover result
            if mode != AUTO:
                raise
        break
    await session.initialize()
    return Revision(str(session.protocol_version))


def _handshake_ok(data: Any) -> bool:
    """An UNSUPPORTED_PROTOCOL_VERSION answer that still lists a handshake-era version."""
    supported = data.get("supported") if isinstance(data, dict) else None
    return not isinstance(supported, list) or any(v in HANDSHAKE_PROTOCOL_VERSIONS for v in supported)


# -- multi-round-trip requests (2026-07-28) ----------------------------------------
async def drive(session: ClientSession, send: Callable[..., Awaitable[Any]]) -> Any:
    """`send(input_responses=, request_state=)` (a request of `session`), and again with the answers
    until the real result comes: each embedded request of an `InputRequiredResult` goes through the
    session's callbacks (the same ones a 2025 server's requests reach), one after another so
    the terminal asks one question at a time; a refusal (ErrorData) ends the request as MCPError.
    At most MAX_ROUNDS rounds of MAX_INPUTS requests; sampling is also held to the turn's model calls."""
    result, rounds, pause = await send(input_responses=None, request_state=None), 0, 0.05
    while isinstance(result, types.InputRequiredResult):
        rounds += 1
        if rounds > MAX_ROUNDS:
            raise MCPError(types.INTERNAL_ERROR, f"server asked for input more than {MAX_ROUNDS} times")
        asked = result.input_requests or {}
        if len(asked) > MAX_INPUTS:  # refused whole, before anything is asked or run
            raise MCPError(types.INVALID_REQUEST, f"server asked for {len(asked)} inputs in one round (at most {MAX_INPUTS})")
        answers: types.InputResponses = {}
        for key, request in asked.items():
            ctx = ClientRequestContext(session=session, request_id=key,
                                       meta=request.params.meta if request.params else None)
            answer = await session.dispatch_input_request(ctx, request)
            if isinstance(answer, types.ErrorData):
                raise MCPError.from_error_data(answer)
            answers[key] = answer
        if not answers:  # only request_state: the server is not done yet
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.25)
        result = await send(input_responses=answers or None, request_state=result.request_state)
    return result


async def call_tool(session: ClientSession, name: str, args: dict, timeout: float,
                    progress: ProgressFn | None) -> types.CallToolResult:
    return await drive(session, partial(session.call_tool, name, args, read_timeout_seconds=timeout,
                                        progress_callback=progress, allow_input_required=True))


async def get_prompt(session: ClientSession, name: str, args: dict[str, str] | None) -> types.GetPromptResult:
    return await drive(session, partial(session.get_prompt, name, args, allow_input_required=True))


async def read_resource(session: ClientSession, uri: str) -> types.ReadResourceResult:
    return await drive(session, partial(session.read_resource, uri, allow_input_required=True))


# -- task-only tools of a 2025 server (SEP-1686) -------------------------------------
async def call_as_task(session: ClientSession, revision: Revision, dispatcher: JSONRPCDispatcher, name: str,
                       args: dict, progress: ProgressFn | None) -> types.CallToolResult:
    """Create the task, poll it (its status messages become progress), fetch the result. The SDK
    2.x no longer parses a task-creating `tools/call`, so that one request goes out raw."""
    params = {"name": name, "arguments": args, "task": {"ttl": TASK_TTL_MS}}
    headers = {MCP_PROTOCOL_VERSION_HEADER: revision.version}
    raw = await dispatcher.send_raw_request("tools/call", params, {"headers": headers})
    task = types.CreateTaskResult.model_validate(raw).task
    step, last = 0, None
    while task.status == "working":
        if progress is not None and task.status_message and task.status_message != last:
            step, last = step + 1, task.status_message
            await progress(float(step), None, task.status_message)
        await asyncio.sleep(min(max((task.poll_interval or 1000) / 1000, 0.2), 5.0))
        task = await session.send_request(
            types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task.task_id)), types.GetTaskResult)
    if task.status not in ("completed", "input_required"):  # input_required: tasks/result carries the question
        return error_result(f"task {task.status}: {task.status_message or ''}".strip())
    return await session.send_request(
        types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task.task_id)),
        types.CallToolResult)
