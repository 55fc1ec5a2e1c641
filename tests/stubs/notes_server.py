"""A small MCP server over stdio for permission tests, so they need no npm.

    python tests/stubs/notes_server.py FOLDER

Two tools on text files in FOLDER: `read_note` (readOnlyHint: runs without asking) and
`write_note` (not read-only, destructive: needs the user's approval, denied in a pipe unless
--yes). What the tools did is on the disk, where the tests look.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

NAME_RE = re.compile(r"^[\w.-]{1,64}$")


def build(folder: Path) -> MCPServer:
    app = MCPServer("notes")

    def path_of(name: str) -> Path:
        if not NAME_RE.match(name) or name.startswith("."):
            raise ValueError(f"bad note name: {name!r}")
        return folder / name

    @app.tool(annotations=ToolAnnotations(readOnlyHint=True), structured_output=False)
    def read_note(name: str) -> str:
        """Read the note NAME."""
        return path_of(name).read_text(encoding="utf-8")

    @app.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True), structured_output=False)
    def write_note(name: str, text: str) -> str:
        """Write TEXT into the note NAME (replacing it)."""
        path_of(name).write_text(text, encoding="utf-8")
        return f"wrote {len(text)} characters to {name}"

    return app


if __name__ == "__main__":
    build(Path(sys.argv[1]).resolve()).run("stdio")
