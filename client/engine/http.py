"""The HTTP clients the chat models use: one TLS context for the whole process, and clients
bound to a unix socket for the local model's servers (client/engine/local/server.py)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from client.core.config import Settings


def http_clients(settings: Settings, uds: str = "") -> dict[str, Any]:
    """The HTTP clients the openai SDK would make for itself (same defaults: timeout, limits,
    redirects), sharing one TLS context: loading the CA store takes ~40 ms (seconds on a busy
    machine) and every chat model would otherwise load it twice (a sync and an async client),
    three models a session. `uds`: every request goes to this unix socket instead (the URL's
    host is then only a name; no proxy from the environment applies)."""
    import openai

    if uds:
        http, name = _http(), socket_name(uds)
        return {"http_client": openai.DefaultHttpxClient(timeout=settings.timeout, transport=http.HTTPTransport(uds=name)),
                "http_async_client": openai.DefaultAsyncHttpxClient(timeout=settings.timeout,
                                                                    transport=http.AsyncHTTPTransport(uds=name))}
    verify = tls_context()
    return {"http_client": openai.DefaultHttpxClient(timeout=settings.timeout, verify=verify),
            "http_async_client": openai.DefaultAsyncHttpxClient(timeout=settings.timeout, verify=verify)}


def async_client(uds: str = "", **kwargs: Any) -> Any:
    """An httpx.AsyncClient; `uds`: bound to that unix socket."""
    import httpx

    if uds:
        kwargs["transport"] = httpx.AsyncHTTPTransport(uds=socket_name(uds))
    return httpx.AsyncClient(**kwargs)


def socket_name(uds: str) -> str:
    """A name that reaches the socket for the rest of this process, however deep its folder."""
    from plumbing.unixsock import lasting_name

    return lasting_name(Path(uds))[0]


def _http() -> Any:
    try:
        import httpx2 as http  # the openai SDK's HTTP library from 2.x on
    except ImportError:  # pragma: no cover - older SDKs use httpx
        import httpx as http  # type: ignore[no-redef]
    return http


@functools.cache
def tls_context() -> Any:
    """The TLS context the openai SDK's HTTP library builds by default, made once per process."""
    return _http().create_ssl_context()
