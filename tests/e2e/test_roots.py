"""Roots never widen access, against the real @modelcontextprotocol/server-filesystem.

server-filesystem replaces the directories it was started with by the client's roots. The
client runs in a project folder; the server is configured with the project's `notes/`. Even
with `--root` naming the whole project, the server keeps to `notes/`: a server whose entry names
its directories is offered no roots, and nobody else gets the working folder unasked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_mcp_everything import call_line, everything_js, tool_results, write_config  # noqa: F401
from tests.e2e.test_permissions import fs_entry

pytestmark = pytest.mark.sqlite_only


def test_a_filesystem_server_keeps_to_its_own_directory(cli, llm, everything_js, tmp_path):
    proj = tmp_path  # the client's working folder
    notes = (proj / "notes").resolve()
    notes.mkdir()
    (notes / "todo.txt").write_text("inside-notes-31", encoding="utf-8")
    (proj / "secret.txt").write_text("outside-secret-77", encoding="utf-8")
    config = write_config(proj, {"fs": fs_entry(everything_js, notes)})
    lines = [call_line("read_text_file", {"path": str(proj / "secret.txt")}),
             call_line("read_text_file", {"path": str(notes / "todo.txt")}),
             call_line("write_file", {"path": str(notes / "new.txt"), "content": "written-in-notes"}),
             call_line("list_allowed_directories", {})]
    r = cli("--new", "--yes", "--mcp-config", config, "--context", "none", "--no-memory", "--root", str(proj),
             input="\n".join(lines) + "\n")
    assert r.code == 0, r.err
    results = tool_results(llm.chat_requests())
    assert "outside-secret-77" not in str(results) and "denied" in results["read_text_file"][0].lower()
    assert "inside-notes-31" in results["read_text_file"][1]
    assert (notes / "new.txt").read_text(encoding="utf-8") == "written-in-notes"  # its own directory still works
    allowed = results["list_allowed_directories"][0]
    assert str(notes) in allowed and f"{proj.resolve()}\n" not in allowed + "\n"
