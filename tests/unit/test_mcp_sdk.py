"""client/engine/mcp/sdk.py: the MCP client without the SDK's eager server stack, and the whole
SDK still there for whoever asks for it (a fresh interpreter per check)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

SERVER_STACK = ("starlette", "uvicorn", "sse_starlette", "mcp.server", "mcp.client.client")


def _run(code: str) -> str:
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_the_client_layer_loads_no_server_stack_yet_the_sdk_is_whole():
    out = _run(f"""
import sys
import client.engine.mcp.hub, client.engine.mcp.catalog, client.engine.mcp.listing
print(sorted(k for k in {SERVER_STACK!r} if k in sys.modules))
import mcp, mcp.types, mcp_types
from mcp import Client, ClientSession, MCPError
from mcp.client import Client as Again
from client.engine.mcp.server import ClientSession as Ours
print(Client is Again, ClientSession is Ours, mcp.types.Tool is mcp_types.Tool, mcp.Tool is mcp_types.Tool)
""")
    assert out.splitlines() == ["[]", "True True True True"]


def test_an_sdk_imported_first_is_left_as_it_is():
    out = _run("""
import mcp
import client.engine.mcp
print('Client' in mcp.__dict__, '__getattr__' in mcp.__dict__)
""")
    assert out == "True False"
