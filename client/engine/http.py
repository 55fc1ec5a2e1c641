"""The HTTP clients the chat models use: one TLS context for the whole process."""

from __future__ import annotations

import functools
from typing import Any

from client.core.config import Settings


def http_clients(settings: Settings) -> dict[str, Any]:
    """The HTTP clients the openai SDK would make for itself (same defaults: timeout, limits,
    redirects), sharing one TLS context: loading the CA store takes ~40 ms (seconds on a busy
    machine) and every chat model would otherwise load it twice (a sync and an async client),
    three models a session."""
    import openai

    verify = tls_context()
    return {"http_client": openai.DefaultHttpxClient(timeout=settings.timeout, verify=verify),
            "http_async_client": openai.DefaultAsyncHttpxClient(timeout=settings.timeout, verify=verify)}


@functools.cache
def tls_context() -> Any:
    """The TLS context the openai SDK's HTTP library builds by default, made once per process."""
    try:
        import httpx2 as http  # the openai SDK's HTTP library from 2.x on
    except ImportError:  # pragma: no cover - older SDKs use httpx
        import httpx as http  # type: ignore[no-redef]
    return http.create_ssl_context()
