"""uvicorn's HTTP/1.1 protocol (h11) with a deadline for the request head.

uvicorn has no header-read timeout: its keep-alive timer runs only after a response and stops at
the first byte received, and a fresh connection has no timer at all. So a client that connects
and never finishes its request line and headers holds a connection (and its buffers) for as long
as it likes. Here a connection waiting for a request (just opened, or after a response) must
complete the request head within `header_timeout` seconds, else it is closed: with
`408 Request Timeout` when part of a request came, silently when nothing did (like an idle
keep-alive connection). The request body and the response are not limited by it.

The h11 protocol is used whether or not httptools is installed, so this holds for every install.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from server.limits import DEFAULT_HEADER_TIMEOUT

access_logger = logging.getLogger("server.access")

REQUEST_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: 16\r\nconnection: close\r\n\r\nrequest timeout\n"
)


class HeaderTimeoutProtocol(H11Protocol):
    header_timeout: float = DEFAULT_HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_started = 0.0
        self._head_bytes = False  # part of a request arrived since the timer started

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch_head()

    def data_received(self, data: bytes) -> None:
        if self._head_timer is not None and data:
            self._head_bytes = True
        super().data_received(data)
        self._watch_head()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch_head()  # waiting for the next request on this connection (or a pipelined one came)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def _unsupported_upgrade_warning(self) -> None:
        """An `Upgrade:` request is served as a plain one (there is no WebSocket endpoint); its access
        line records it, uvicorn's two warnings would be more lines for the one request."""

    def _waiting_for_head(self) -> bool:
        return (not self.transport.is_closing() and self.conn.their_state is h11.IDLE
                and self.conn.our_state is h11.IDLE)

    def _watch_head(self) -> None:
        """Start the timer when a request head is awaited, stop it once one has arrived."""
        if not self._waiting_for_head():
            self._stop_head_timer()
        elif self._head_timer is None:
            self._head_started = self.loop.time()
            self._head_bytes = False
            self._head_timer = self.loop.call_later(self.header_timeout, self._head_timed_out)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if not self._waiting_for_head():
            return
        if self._head_bytes:
            self.transport.write(REQUEST_TIMEOUT)
            who = self.client[0] if self.client else "-"
            access_logger.info("- - 408 %.1fms %s (request head not complete within %gs)",
                               (self.loop.time() - self._head_started) * 1000, who, self.header_timeout)
        self.transport.close()


def protocol_class(header_timeout: float) -> type[HeaderTimeoutProtocol]:
    """The protocol class for `uvicorn.Config(http=...)` with this deadline."""
    return type("HeaderTimeoutProtocol", (HeaderTimeoutProtocol,), {"header_timeout": header_timeout})
