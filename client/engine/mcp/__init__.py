"""MCP side of the client in two parts: the connections (specs, server, starting, ...: no LangChain)
and the LangChain side (hub.py, adapter.py, gate.py, sampling.py; tests/unit/test_architecture.py)."""

from client.engine.mcp import sdk

sdk.lazy()  # before the SDK is first imported: skip its eager package imports (sdk.py)

from client.engine.mcp.results import result_text
from client.engine.mcp.server import ServerConn, ServerGone
from client.engine.mcp.specs import ServerSpec, bundled_spec, load_config, server_specs, url_spec

__all__ = [
    "ServerConn", "ServerGone", "ServerSpec",
    "bundled_spec", "load_config", "result_text", "server_specs", "url_spec",
]
