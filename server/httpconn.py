"""uvicorn's HTTP/1.1 protocol (h11) with deadlines for receiving a request and a cap on connections.

uvicorn has no header-read or body-read timeout: its keep-alive timer runs only after a response
and stops at the first byte received, and a fresh connection has no timer at all. So a client that
connects and sends its request slowly (the head, or a body a byte at a time) holds a connection
and its descriptor for as long as it likes; 1,100 of them took every descriptor of a process at
the usual limit of 1,024, and nobody else got an answer (issue 50). Here:
- a connection waiting for a request (just opened, or after a response) must complete the request
  head within `header_timeout` seconds, and then its whole body within `body_timeout`; else it is
  closed, with `408 Request Timeout` when part of a request came and no answer was started,
  silently when nothing did (like an idle keep-alive connection). The response is not limited;
- at most `max_connections` connections are open (server.limits: below the descriptor limit).
  One more evicts the connection that has waited longest for a request still incomplete (the
  slowest sender; a normal request arrives whole and is never it); when every connection is
  busy with a response, the new one gets `503` and is closed. Evictions are logged as one
  summary line a second at most;
- asyncio accepts a listening socket's whole backlog at once, before any new connection is seen:
  `GatedSocket` stops accepting at `Budget.ceiling` (the cap and a slack for the evictions under
  way, server.limits), so the descriptors never run out for connections alone.

The h11 protocol is used whether or not httptools is installed, so this holds for every install.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from server.limits import DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, accept_slack
from server.logsafe import Throttle

access_logger = logging.getLogger("server.access")


def _plain(status: bytes, text: bytes) -> bytes:
    return (b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: "
            + str(len(text)).encode() + b"\r\nconnection: close\r\n\r\n" + text)


REQUEST_TIMEOUT = _plain(b"408 Request Timeout", b"request timeout\n")
SERVICE_UNAVAILABLE = _plain(b"503 Service Unavailable", b"too many connections\n")
HEAD, BODY = "head", "body"  # what a connection's timer waits for


class Budget:
    """The connections of one listening socket: accepted but not yet seen by a protocol, and live."""

    def __init__(self, cap: int) -> None:
        self.cap = cap  # 0: no cap of ours
        self.ceiling = cap + accept_slack(cap) if cap else 0
        self.pending = 0
        self.live = 0
        self.evictions = Throttle(1.0)


class GatedSocket(socket.socket):
    """A listening socket that accepts nothing while `budget` is at its ceiling (asyncio then tries
    again at its next turn; a connection closes within a turn or two of an eviction)."""

    budget: Budget

    def accept(self) -> tuple[socket.socket, Any]:
        b = self.budget
        if b.ceiling and b.pending + b.live >= b.ceiling:
            raise BlockingIOError
        conn = super().accept()
        b.pending += 1
        return conn


def listen(host: str, port: int, backlog: int, budget: Budget) -> GatedSocket:
    """The server's listening socket, as uvicorn would bind it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = GatedSocket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.budget = budget
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    return sock


class Server(uvicorn.Server):
    """uvicorn's server on our socket, which says where it runs once the app has started, as uvicorn
    does when it binds the socket itself (it says nothing for a socket it is given): supervisors
    and tests take that line for "ready"."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and sockets:
            host, port = self.config.host, sockets[0].getsockname()[1]
            shown = f"[{host}]" if sockets[0].family == socket.AF_INET6 else host
            logging.getLogger("uvicorn.error").info("Uvicorn running on http://%s:%d (Press CTRL+C to quit)", shown, port)


class HeaderTimeoutProtocol(H11Protocol):
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    budget: Budget = Budget(0)  # one per server (protocol_class)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timer: asyncio.TimerHandle | None = None
        self._phase: str | None = None  # HEAD or BODY while a request is awaited, else None
        self._since = 0.0  # when the awaited request began to be awaited
        self._bytes = False  # part of the awaited request arrived

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        b = self.budget
        b.pending, b.live = max(0, b.pending - 1), b.live + 1
        super().connection_made(transport)
        self._watch()
        if b.cap and len(self.connections) > b.cap:
            self._make_room()

    def data_received(self, data: bytes) -> None:
        if self._phase is not None and data:
            self._bytes = True
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()  # waiting for the next request on this connection (or a pipelined one came)

    def connection_lost(self, exc: Exception | None) -> None:
        self.budget.live -= 1  # its descriptor is closed right after this (asyncio's transport)
        self._stop_timer()
        super().connection_lost(exc)

    def _unsupported_upgrade_warning(self) -> None:
        """An `Upgrade:` request is served as a plain one (there is no WebSocket endpoint); its access
        line records it, uvicorn's two warnings would be more lines for the one request."""

    def _awaiting(self) -> str | None:
        """HEAD while a request head is awaited, BODY while its body is, else None."""
        if self.transport.is_closing():
            return None
        if self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE:
            return HEAD
        return BODY if self.conn.their_state is h11.SEND_BODY else None

    def _watch(self) -> None:
        """Start the deadline of what is awaited now; stop it once the request is in."""
        phase = self._awaiting()
        if phase == self._phase:
            return
        self._stop_timer()
        self._phase = phase
        if phase is None:
            return
        if phase == HEAD:
            self._since, self._bytes = self.loop.time(), False
        self._timer = self.loop.call_later(self.header_timeout if phase == HEAD else self.body_timeout,
                                           self._timed_out)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _timed_out(self) -> None:
        self._timer = None
        phase = self._phase
        if phase is None or self._awaiting() != phase:
            return
        limit = self.header_timeout if phase == HEAD else self.body_timeout
        self._close_incomplete(f"request {phase} not complete within {limit:g}s")

    def _close_incomplete(self, why: str | None) -> None:
        """Close this connection while its request is incomplete: 408 when part of it came and no
        answer was started (with an access line saying `why`, unless None), silently when nothing came."""
        self._phase = None
        self._stop_timer()
        started = self.cycle is not None and self.cycle.response_started
        if self._bytes and not started:
            self.transport.write(REQUEST_TIMEOUT)
            if why is not None:
                who = self.client[0] if self.client else "-"
                access_logger.info("- - 408 %.1fms %s (%s)", (self.loop.time() - self._since) * 1000, who, why)
        self.transport.close()

    def _make_room(self) -> None:
        """Over the cap: the connection that has waited longest for its request goes (this new
        one when every other is busy with a response)."""
        waiting = [c for c in self.connections if isinstance(c, HeaderTimeoutProtocol) and c._phase is not None]
        oldest = min(waiting, key=lambda c: c._since, default=self)
        if oldest is self:
            self._stop_timer()
            self._phase = None
            self.transport.write(SERVICE_UNAVAILABLE)
            self.transport.close()
        else:
            oldest._close_incomplete(None)  # counted below: one line a second, not one per connection
        told = self.budget.evictions.note("new refused (503)" if oldest is self else "slowest evicted")
        if told:
            access_logger.warning("more than %d connections: %s", self.budget.cap, told)


def protocol_class(header_timeout: float, body_timeout: float = DEFAULT_BODY_TIMEOUT,
                   budget: Budget | None = None) -> type[HeaderTimeoutProtocol]:
    """The protocol class for `uvicorn.Config(http=...)` with these limits (`budget`: the
    listening socket's, from `listen`; None: no cap)."""
    return type("HeaderTimeoutProtocol", (HeaderTimeoutProtocol,),
                {"header_timeout": header_timeout, "body_timeout": body_timeout, "budget": budget or Budget(0)})
