"""What stands in front of the MCP endpoint over HTTP: who may call it, which Host/Origin it
answers, a health check for the balancer, and one access-log line per request.

Pure ASGI middlewares, so streamed answers pass through untouched. Request bodies are waited for
whole before the SDK sees them (`WholeBody`): one the client never finishes costs nothing but
the wait, which server.httpconn bounds.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Iterable, Sequence
from typing import Any

from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings

from server.logsafe import escape, url_path

access_logger = logging.getLogger("server.access")

HEALTH_PATH = "/healthz"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
# What MCPServer allows by default on a loopback bind; always allowed in addition to the options.
LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
LOOPBACK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]


def split_list(values: Iterable[str] | str | None) -> list[str]:
    """'a,b' or ['a', 'b,c'] -> ['a', 'b', 'c'] (blanks dropped, order kept, no duplicates)."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    out: list[str] = []
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if part and part not in out:
                out.append(part)
    return out


def transport_security(
    host: str, allowed_hosts: Sequence[str], allowed_origins: Sequence[str]
) -> TransportSecuritySettings | None:
    """DNS-rebinding protection settings for MCPServer's streamable HTTP app.

    With allowed hosts/origins: protection on, loopback plus those. Without: None, i.e. the SDK's
    own default (on for a loopback bind, off for any other address; `describe_security` says so).
    """
    if not allowed_hosts and not allowed_origins:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*LOOPBACK_HOSTS, *(h for h in allowed_hosts if h not in LOOPBACK_HOSTS)],
        allowed_origins=[*LOOPBACK_ORIGINS, *(o for o in allowed_origins if o not in LOOPBACK_ORIGINS)],
    )


def describe_security(host: str, allowed_hosts: Sequence[str], allowed_origins: Sequence[str], tokens: int) -> list[str]:
    """The start-up lines that say who can reach the server and which Host headers it answers."""
    lines = []
    if allowed_hosts or allowed_origins:
        lines.append(
            "DNS-rebinding protection on: Host must be loopback or one of %s; Origin absent, loopback or one of %s"
            % (allowed_hosts or "[]", allowed_origins or "[]")
        )
    elif host in LOOPBACK:
        lines.append("DNS-rebinding protection on: only loopback Host/Origin headers (add others with --allowed-hosts)")
    else:
        lines.append(
            f"bound to {host} without --allowed-hosts: DNS-rebinding protection is OFF, any Host header is "
            "answered (set --allowed-hosts/--allowed-origins, e.g. mcp.internal:*, to restrict)"
        )
    if tokens:
        lines.append(f"bearer token required on every request except GET {HEALTH_PATH} ({tokens} token(s) accepted)")
    elif host not in LOOPBACK:
        lines.append(
            f"no --auth-token: anyone who can reach {host} can run searches on this server's Naver quota"
        )
    return lines


async def _send_plain(send: Any, status: int, body: bytes, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                    *headers],
    })
    await send({"type": "http.response.body", "body": body})


class HealthCheck:
    """GET/HEAD /healthz -> 200 "ok" at once: no MCP session, no Naver call, no token."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == HEALTH_PATH and scope["method"] in ("GET", "HEAD"):
            await _send_plain(send, 200, b"ok\n")
            return
        await self.app(scope, receive, send)


class BearerAuth:
    """Every HTTP request needs `Authorization: Bearer <one of tokens>`; else 401.

    Each presented token is compared with every accepted one in constant time (no early exit), so
    neither a token's content nor which of several tokens matched shows in the timing.
    """

    def __init__(self, app: Any, tokens: Sequence[str]) -> None:
        self.app = app
        self.tokens = [t.encode() for t in tokens]

    def check(self, headers: Iterable[tuple[bytes, bytes]]) -> str | None:
        """None when allowed, else the reason (never containing the token)."""
        values = [v for k, v in headers if k.lower() == b"authorization"]
        if not values:
            return "missing token"
        scheme, _, presented = values[0].strip().partition(b" ")
        if scheme.lower() != b"bearer" or not presented.strip():
            return "not a bearer token"
        presented = presented.strip()
        ok = False
        for token in self.tokens:
            ok |= hmac.compare_digest(presented, token)
        return None if ok else "wrong token"

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        reason = self.check(scope["headers"])
        if reason is None:
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})["auth_failure"] = reason
        error = b"invalid_request" if reason == "missing token" else b"invalid_token"
        challenge = b'Bearer realm="mcp-search", error="' + error + b'"'
        await _send_plain(send, 401, b"unauthorized\n", [(b"www-authenticate", challenge)])


class AccessLog:
    """One line per HTTP request when its answer ends: method, path as sent (no query string,
    bytes outside visible ASCII as %XX), status, duration, client. Refusals are warnings with the
    reason (401: the token's fault; 421/403: the Host/Origin refused by the SDK; 503: the session
    cap). Never bodies, tokens or other headers. A request whose client went away before its body
    was in has no line here: it was never made (server.httpconn logs those it closed itself)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 0
        body_done = gone = False

        async def send_and_watch(message: dict) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        async def receive_and_watch() -> dict:
            nonlocal body_done, gone
            message = await receive()
            if message["type"] == "http.request" and not message.get("more_body", False):
                body_done = True
            elif message["type"] == "http.disconnect" and not body_done:
                gone = True
            return message

        try:
            await self.app(scope, receive_and_watch, send_and_watch)
        finally:
            if gone:  # closed before its body was in: the request never came whole (server.httpconn logs a 408)
                return
            ms = (time.perf_counter() - start) * 1000
            client = scope.get("client")
            who = f"{client[0]}" if client else "-"
            method = url_path(str(scope["method"]).encode("latin-1", "replace"))
            path = url_path(scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape"))
            reason = _refusal(scope, status)
            if reason:
                access_logger.warning("%s %s %d %.1fms %s (%s)", method, path, status, ms, who, reason)
            else:
                access_logger.info("%s %s %d %.1fms %s", method, path, status or 500, ms, who)


def _header(scope: dict, name: bytes) -> str:
    value = next((v for k, v in scope["headers"] if k.lower() == name), b"")
    text = value.decode("latin-1")
    return escape(text[:100] + ("..." if len(text) > 100 else ""))


def _refusal(scope: dict, status: int) -> str | None:
    """Why the request was refused, for the access line (the SDK's own warnings are off below DEBUG)."""
    reason = scope.get("state", {}).get("auth_failure")
    if reason:
        return reason
    if status == 421:  # the SDK's DNS-rebinding check
        return f"Host not allowed: {_header(scope, b'host')}"
    if status == 403:
        return f"Origin not allowed: {_header(scope, b'origin')}"
    if status == 503:  # the session manager at --max-sessions
        return "too many open MCP sessions"
    return None


class WholeBody:
    """The app is called once the request's body is in. The SDK also reads a body whole before
    it acts (and refuses one over DEFAULT_MAX_REQUEST_BODY_SIZE), but it is called with what came
    when the client goes away: each slow client closed mid-body (server.httpconn) then opened and
    dropped an MCP session and logged a traceback, and a flood of them kept the loop too busy to
    answer anyone (issue 50). Past that size the body is handed on as it comes (the SDK's 413)."""

    def __init__(self, app: Any, limit: int = DEFAULT_MAX_REQUEST_BODY_SIZE) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more and size <= self.limit:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # never came whole: nobody to answer
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = bool(message.get("more_body", False))
        first = {"type": "http.request", "body": b"".join(chunks), "more_body": more}
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return first

        await self.app(scope, replay, send)


def wrap(app: Any, tokens: Sequence[str]) -> Any:
    """The Starlette app behind the gate: access log, health check, the token check, then the
    body waited for whole."""
    inner = WholeBody(app)
    return AccessLog(HealthCheck(BearerAuth(inner, tokens) if tokens else inner))
