"""MCP side of the client: which servers (specs), their sessions (server), the tools (hub)."""

from .hub import ToolHub
from .results import result_text
from .server import ServerConn, ServerGone
from .specs import ServerSpec, bundled_spec, load_config, server_specs, url_spec

__all__ = [
    "ServerConn", "ServerGone", "ServerSpec", "ToolHub",
    "bundled_spec", "load_config", "result_text", "server_specs", "url_spec",
]
