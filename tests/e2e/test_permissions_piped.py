"""A pipe has nobody to ask: a tool call that is not known safe is denied unless --yes.

Against tests/stubs/notes_server.py (a Python MCP server over stdio: `read_note` read-only,
`write_note` not), so this never skips for want of npm; tests/e2e/test_permissions.py proves
the same against the reference filesystem server. Assertions are on the disk, on what the model
endpoint received next, and on the transcript.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.e2e.test_mcp_everything import call_line, tool_results, write_config
from tests.e2e.test_permissions import DENIED, exported, permissions_of

NOTES = str(ROOT / "tests" / "stubs" / "notes_server.py")


@pytest.fixture
def notes(tmp_path: Path) -> tuple[Path, str]:
    """(folder, --mcp-config file) for the notes server on a folder with one note."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "kept.txt").write_text("kept-note-456", encoding="utf-8")
    return folder, write_config(tmp_path, {"notes": {"command": sys.executable, "args": [NOTES, str(folder)]}})


def run(cli, config: str, lines: list[str], *args: str):
    r = cli("--new", "--mcp-config", config, "--context", "none", "--no-memory", *args,
             input="\n".join(lines) + "\n", env={"XDG_CONFIG_HOME": str(cli.tmp / "cfg")})
    assert r.code == 0, r.err
    assert "Traceback" not in r.out + r.err
    return r


def test_piped_write_is_denied_read_only_runs(cli, llm, notes):
    folder, config = notes
    r = run(cli, config, [call_line("write_note", {"name": "new.txt", "text": "written"}),
                           call_line("read_note", {"name": "kept.txt"})])
    assert not (folder / "new.txt").exists()  # denied: the call never reached the server
    results = tool_results(llm.chat_requests())
    assert len(results["write_note"]) == 1 and results["write_note"][0].startswith(DENIED)
    assert "write_note on MCP server notes" in results["write_note"][0]
    assert results["read_note"] == ["kept-note-456"]  # readOnlyHint: ran without a question
    lines = [ln for ln in (r.out + r.err).splitlines() if "물어볼 터미널이 없어" in ln]
    assert lines == ["notes/write_note 호출은 허용이 필요한데 물어볼 터미널이 없어 실행하지 않았습니다. 미리 허용하려면 "
                     "--yes(MCP_CHAT_YES=1) 또는 mcpServers 설정의 \"alwaysAllow\"를 쓰세요."]
    assert permissions_of(exported(cli, r)) == {"write_note": ["deny:no_terminal"], "read_note": ["allow:read_only"]}


def test_piped_write_runs_with_yes(cli, llm, notes):
    folder, config = notes
    r = run(cli, config, [call_line("write_note", {"name": "new.txt", "text": "written-by-yes"})], "--yes")
    assert (folder / "new.txt").read_text(encoding="utf-8") == "written-by-yes"
    [result] = tool_results(llm.chat_requests())["write_note"]
    assert result == "wrote 14 characters to new.txt"
    assert permissions_of(exported(cli, r)) == {"write_note": ["allow:yes"]}
