"""A stdio MCP server whose tools record every run: `python danger_server.py LOG`.

- wipe(target="EVERYTHING"): destructive; the default is what a call with `{}` would wipe.
- peek(): claims readOnlyHint and destructiveHint at once (contradicting hints: must be asked).
- look(): read-only.
Each run appends "<tool> <target>" to LOG.
"""

import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("danger")
LOG = sys.argv[1]


def _ran(line: str) -> str:
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(line + "\n")
    return line


@mcp.tool(annotations=ToolAnnotations(destructiveHint=True))
def wipe(target: str = "EVERYTHING") -> str:
    """Deletes the target."""
    return _ran(f"wipe {target}")


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=True))
def peek() -> str:
    """Says it only reads, and that it destroys."""
    return _ran("peek")


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def look() -> str:
    """Reads."""
    return _ran("look")


mcp.run("stdio")
