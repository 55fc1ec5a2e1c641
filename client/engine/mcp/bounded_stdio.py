"""The stdio transport with a bounded reader (issue 37): the MCP SDK's `stdio_client`, whose
process start and shutdown we keep (its helpers), with our own stdout reader.

The SDK's reader decodes the server's output and does `(buffer + chunk).split("\n")` for every
chunk: one 50 MB line costs quadratic time (minutes of CPU) and several copies of the line
(742 MB). Ours reads bytes into one buffer and parses each complete line as it is; a line past
`cap` is not kept: only its first and last KEPT_BYTES are, the rest is dropped as it arrives.
The request it answers gets a stand-in (client/engine/mcp/oversize.py) at once when the head
names it (its top-level "id"), else at the line's end from the tail (an "id" written last), or
the one request still waiting. The session goes on; a line without end stops only this server.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator, TextIO

import anyio
import anyio.lowlevel
from mcp import types
from mcp.client import stdio as sdk
from mcp.client.stdio import StdioServerParameters
from mcp.shared.message import SessionMessage

from client.engine.mcp.oversize import KEPT_BYTES, MAX_MESSAGE_BYTES, is_request_or_notification, message_id, stand_in

log = logging.getLogger("mcp.client.stdio")  # the SDK's own logger: quiet unless --debug (hub.py)
PENDING_KEPT = 1024  # requests remembered until answered (a cancelled one may never be)


class _Reader:
    """Bytes in, one parsed message per line out; a line over `cap` becomes a stand-in."""

    def __init__(self, cap: int, pending: OrderedDict[Any, str]) -> None:
        self.cap, self.pending = cap, pending
        self.buf = bytearray()
        self.over: _Over | None = None  # the line being dropped

    def feed(self, chunk: bytes) -> list[SessionMessage | Exception]:
        out: list[SessionMessage | Exception] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            out += self._add(chunk, start, end)
            out += self._line()
            start = end + 1
        out += self._add(chunk, start, len(chunk))
        return out

    def _add(self, chunk: bytes, start: int, end: int) -> list[SessionMessage | Exception]:
        if start == end:
            return []
        if self.over is None:
            self.buf += chunk[start:end]
            if len(self.buf) <= self.cap:
                return []
            self.over = _Over(bytes(self.buf[:KEPT_BYTES]), self.buf[-KEPT_BYTES:], len(self.buf))
            self.buf = bytearray()  # from here on, the line is not kept
            return self._decide(early=True)
        over = self.over
        over.tail += chunk[max(start, end - KEPT_BYTES):end]
        del over.tail[:-KEPT_BYTES]
        over.size += end - start
        return []

    def _line(self) -> list[SessionMessage | Exception]:
        if self.over is not None:
            out = [] if self.over.handled else self._decide(early=False)
            self.over = None
            return out
        line, self.buf = self.buf, bytearray()
        if not line.strip():
            return []
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError as exc:
            log.exception("Failed to parse JSONRPC message from server")
            return [exc]
        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            self.pending.pop(message.id, None)
        return [SessionMessage(message)]

    def _decide(self, early: bool) -> list[SessionMessage | Exception]:
        """Answer the waiting request now if the head names it (or, at the line's end, the tail
        does, or only one request waits); a request or notification of the server's is dropped."""
        over = self.over
        assert over is not None
        if is_request_or_notification(over.head):  # not an answer: nobody waits for it
            over.handled = True
            log.warning("Dropped a message from the server: over %d bytes", self.cap)
            return []
        rid = message_id(over.head, b"" if early else bytes(over.tail))
        if rid not in self.pending and not early and len(self.pending) == 1:
            rid = next(iter(self.pending))  # no readable id, one request waiting: it is the answer
        if rid not in self.pending:
            if not early:
                log.warning("Dropped an answer of %d bytes from the server to no waiting request", over.size)
            return []
        over.handled = True
        reply = stand_in(rid, self.pending.pop(rid), None if early else over.size, self.cap)
        return [SessionMessage(types.jsonrpc_message_adapter.validate_json(reply))]


@dataclass
class _Over:
    head: bytes
    tail: bytearray
    size: int
    handled: bool = False  # answered, or dropped as not an answer


@asynccontextmanager
async def bounded_stdio_client(server: StdioServerParameters, errlog: TextIO,
                               cap: int = MAX_MESSAGE_BYTES) -> AsyncIterator[tuple[Any, Any]]:
    """`mcp.client.stdio.stdio_client` with a reader that never holds more than `cap` bytes of one
    message (and a writer that remembers which requests wait for an answer)."""
    command = await sdk._get_executable_command(server.command)
    process = await sdk._create_platform_compatible_process(
        command=command, args=server.args, env=sdk.get_default_environment() | (server.env or {}),
        errlog=errlog, cwd=server.cwd)
    # as in the SDK: no await between the spawn and the task group
    read_stream_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_stream_reader = anyio.create_memory_object_stream[SessionMessage](0)
    pending: OrderedDict[Any, str] = OrderedDict()
    shutting_down = False
    writer_done = anyio.Event()

    async def stdout_reader() -> None:
        assert process.stdout
        reader = _Reader(cap, pending)
        try:
            async with read_stream_writer:
                try:
                    async for chunk in process.stdout:
                        for item in reader.feed(chunk):
                            try:
                                await read_stream_writer.send(item)
                            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                                return
                finally:
                    await sdk._drain_stdout(process)
        except anyio.ClosedResourceError:
            pass
        except (anyio.BrokenResourceError, ConnectionError):
            if not shutting_down:
                log.exception("Reading from the MCP server's stdout failed mid-session")

    async def stdin_writer() -> None:
        assert process.stdin
        try:
            async with write_stream_reader:
                async for session_message in write_stream_reader:
                    message = session_message.message
                    if isinstance(message, types.JSONRPCRequest):
                        pending[message.id] = message.method
                        while len(pending) > PENDING_KEPT:
                            pending.popitem(last=False)
                    json = message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((json + "\n").encode(server.encoding, server.encoding_error_handler))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_stream_writer.aclose()
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(sdk._WRITER_FLUSH_TIMEOUT) as flush_scope:
            await writer_done.wait()
        if flush_scope.cancelled_caught:
            await anyio.lowlevel.cancel_shielded_checkpoint()
        await sdk._stop_server_process(process)
        await sdk._aclose_all(read_stream, write_stream, read_stream_writer, write_stream_reader)
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            shutting_down = True
            with anyio.CancelScope(shield=True):  # the server process must not outlive us
                await shutdown()
            tg.cancel_scope.cancel()
    await anyio.lowlevel.cancel_shielded_checkpoint()
