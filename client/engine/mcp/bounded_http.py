"""HTTP responses of an MCP server read up to a cap per message (issue 37), through a response
hook on our httpx2 client: it swaps the body stream before anyone reads it, whatever transport
or proxy the client uses.

- A JSON body (any type but SSE) is held up to `cap` bytes, then handed on whole; past the cap
  the connection is dropped and, for a JSON-RPC request we sent (the POST body says which), a
  stand-in (client/engine/mcp/oversize.py) is handed on instead: the SDK answers that one
  request with it and the session goes on. Any other request over the cap fails (StreamError).
- An event stream passes through; an event that passes `cap` is cut: what was already passed
  on is closed as an event of a type the SDK ignores, the rest is dropped as it arrives, and when
  the event ends, if it was an answer (not a request or notification), the stand-in follows as
  an event of its own. A POST's stream then ends (it carried that one answer).
- Compressed bodies are inflated here, in bounded pieces, so that the cap counts the bytes a
  parser would see (a small gzip body can inflate to gigabytes); other encodings are refused.
"""

from __future__ import annotations

import json
import logging
import re
import zlib
from collections import OrderedDict
from typing import Any, AsyncIterator, Callable, Iterator

import httpx2

from client.engine.mcp.oversize import KEPT_BYTES, MAX_MESSAGE_BYTES, is_request_or_notification, message_id, stand_in

log = logging.getLogger("mcp.client.streamable_http")  # the SDK's logger: quiet unless --debug (hub.py)
PIECE = 64 * 1024
DROPPED = b"event: mcp-chat-dropped\n\n"  # the SDK logs an unknown event type and goes on
_BOUNDARY = re.compile(rb"\n\n|\r\r|\n\r")  # a line end followed by a line end: an event ends
PENDING_KEPT = 1024
LEGACY_SSE_CAP = 1024 * 1024 - KEPT_BYTES  # the SDK's sse_client fails a stream at 1 MiB per event


class TooLarge(httpx2.StreamError):
    """An HTTP body over the cap that is not the answer to one of our JSON-RPC requests."""


def bounded(cap: int = MAX_MESSAGE_BYTES) -> Callable[[httpx2.Response], Any]:
    """A response hook (event_hooks={"response": [...]}) that bounds every body at `cap`."""

    pending: OrderedDict[Any, str] = OrderedDict()  # requests posted, for answers on another stream (SSE GET)

    async def hook(response: httpx2.Response) -> None:
        request = _sent_message(response.request)
        if request is not None:
            pending[request[0]] = request[1]
            while len(pending) > PENDING_KEPT:
                pending.popitem(last=False)
        encoding = response.headers.get("content-encoding", "").strip().lower()
        inflate = None
        if encoding not in ("", "identity"):
            inflate = _Inflate(encoding) if encoding in ("gzip", "x-gzip", "deflate") else _Inflate.refusing()
            del response.headers["content-encoding"]
        sse = response.headers.get("content-type", "").lower().startswith("text/event-stream")
        stream = (_Events if sse else _Body)(response.stream, cap, request, inflate, pending)
        response.stream = stream  # type: ignore[assignment]

    return hook


def _sent_message(request: httpx2.Request) -> tuple[Any, str] | None:
    """(id, method) of the JSON-RPC request this HTTP request posted, else None."""
    if request.method != "POST":
        return None
    try:
        message = json.loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        return None
    if isinstance(message, dict) and "id" in message and isinstance(message.get("method"), str):
        return message["id"], message["method"]
    return None


class _Inflate:
    """gzip / zlib / raw deflate, at most PIECE bytes out per step."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.z: Any = zlib.decompressobj(zlib.MAX_WBITS | 32)  # gzip or zlib header
        self.started = False

    @classmethod
    def refusing(cls) -> "_Inflate":
        me = cls("")
        me.z = None
        return me

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self.z is None:
            raise TooLarge("a response in an encoding that cannot be read in bounded pieces")
        if not self.started and self.encoding == "deflate":
            self.started = True
            try:
                zlib.decompressobj(zlib.MAX_WBITS | 32).decompress(data[:64], 1)
            except zlib.error:
                self.z = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, as some servers send it
        while True:
            out = self.z.decompress(data, PIECE)
            data = self.z.unconsumed_tail
            if out:
                yield out
            if not data and len(out) < PIECE:  # a full piece may leave output inside zlib
                return


class _Stream(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, cap: int, request: tuple[Any, str] | None, inflate: _Inflate | None,
                 pending: OrderedDict[Any, str]) -> None:
        self.inner, self.cap, self.request, self.inflate, self.pending = inner, cap, request, inflate, pending
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        pieces = self._pieces()
        try:
            async for data in self.bounded(pieces):
                yield data
        finally:
            await pieces.aclose()

    def bounded(self, pieces: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        raise NotImplementedError

    async def _pieces(self) -> AsyncIterator[bytes]:
        async for raw in self.inner:
            if self.inflate is None:
                yield raw
            else:
                for piece in self.inflate.feed(raw):
                    yield piece

    async def aclose(self) -> None:
        if not self.closed:
            self.closed = True
            await self.inner.aclose()


class _Body(_Stream):
    async def bounded(self, pieces: AsyncIterator[bytes]) -> AsyncIterator[bytes]:  # type: ignore[override]
        body = bytearray()
        async for piece in pieces:
            body += piece
            if len(body) > self.cap:
                await self.aclose()  # the rest is never read
                if self.request is None:
                    raise TooLarge(f"a response over {self.cap} bytes")
                log.warning("An answer over %d bytes from the server was not read", self.cap)
                yield stand_in(*self.request, None, self.cap)
                return
        yield bytes(body)


class _Events(_Stream):
    async def bounded(self, pieces: AsyncIterator[bytes]) -> AsyncIterator[bytes]:  # type: ignore[override]
        self.size, self.head, self.tail, self.over, self.handled = 0, bytearray(), bytearray(), False, False
        self.last, self.done = b"\n", False
        carry = b""
        async for piece in pieces:
            out: list[bytes] = []
            start = 0
            for m in _BOUNDARY.finditer(carry + piece):
                end = m.end() - len(carry)
                if end <= start:
                    continue
                out += self._event_bytes(piece[start:end])
                out += self._event_end()
                start = end
            out += self._event_bytes(piece[start:])
            carry = piece[-1:]
            for data in out:
                yield data
            if self.done:
                await self.aclose()
                return

    def _event_bytes(self, seg: bytes) -> list[bytes]:
        if not seg:
            return []
        if len(self.head) < KEPT_BYTES:
            self.head += seg[:KEPT_BYTES - len(self.head)]
        self.tail += seg[-KEPT_BYTES:]
        del self.tail[:-KEPT_BYTES]
        self.size += len(seg)
        if self.over:
            return []
        if self.size <= self.cap:
            self.last = seg[-1:]
            return [seg]
        self.over = True  # what was passed on becomes an event the SDK ignores
        out = [] if self.size == len(seg) else [DROPPED if self.last in (b"\n", b"\r") else b"\n" + DROPPED]
        return out + self._decide(early=True)

    def _event_end(self) -> list[bytes]:
        out = self._decide(early=False) if self.over and not self.handled else []
        self.size, self.head, self.tail, self.over, self.handled = 0, bytearray(), bytearray(), False, False
        return out

    def _decide(self, early: bool) -> list[bytes]:
        """The stand-in for an event not read: at once when the POST or the head says which request
        it answers, else at the event's end (an id written last); a server's request is dropped."""
        data = _data_of(bytes(self.head))
        if is_request_or_notification(data):
            self.handled = True
            log.warning("Dropped an event from the server: over %d bytes", self.cap)
            return []
        rid, method = self.request or (message_id(data, b"" if early else bytes(self.tail).rstrip()), None)
        if rid is None:
            if not early:
                log.warning("Dropped an answer of %d bytes from the server to no known request", self.size)
            return []
        self.handled = True
        self.done = self.request is not None  # a POST's stream carried its one answer: stop reading
        size = None if early else self.size
        return [b"event: message\ndata: " + stand_in(rid, method or self.pending.get(rid), size, self.cap) + b"\n\n"]


def _data_of(head: bytes) -> bytes:
    """The JSON an event's first bytes start: after its first `data:` field."""
    at = head.find(b"data:")
    if at < 0:
        return b""
    data = head[at + 5:]
    return data[1:] if data[:1] == b" " else data
