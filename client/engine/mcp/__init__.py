"""MCP side of the client: which servers (specs), their sessions (server), the tools (hub)."""

from client.engine.mcp import sdk

sdk.lazy()  # before the SDK is first imported: skip its eager package imports (sdk.py)

from client.engine.mcp.hub import ToolHub
from client.engine.mcp.results import result_text
from client.engine.mcp.server import ServerConn, ServerGone
from client.engine.mcp.specs import ServerSpec, bundled_spec, load_config, server_specs, url_spec

__all__ = [
    "ServerConn", "ServerGone", "ServerSpec", "ToolHub",
    "bundled_spec", "load_config", "result_text", "server_specs", "url_spec",
]
