"""Settings that make no sense, and config files that are not text: one line, exit 2, before
anything starts (no model request, no MCP server, no database file), for the chat and for
`threads` and `export`. Before: a negative timeout made every request time out and retry, an
unknown language silently fell back to Korean, a .env that is not UTF-8 was a 33-line traceback.
In this process (tests/cli.py): the command line, the .env files and the settings are the product's.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.faults.files import marker_server

pytestmark = pytest.mark.sqlite_only  # settings, not storage

BAD = {  # environment variable (or option) -> value
    "CLOVA_STUDIO_TIMEOUT": "-1",
    "--timeout": "0",
    "MCP_CHAT_LANG": "fr",
    "MCP_CHAT_PROVIDER": "nope",
    "CONTEXT_STRATEGY": "everything",
    "MAX_TURNS_TO_KEEP": "-3",
    "MAX_MODEL_CALLS": "many",
    "MCP_CHAT_TEMPERATURE": "nan",
    "MCP_CHAT_SUMMARY_SERVER": "2",
    "MCP_CHAT_LOCAL_URL": "ftp://127.0.0.1/v1",
    "MCP_CHAT_LOCAL_KEEP_ALIVE": "-5",
    "CLOVA_STUDIO_BASE_URL": "127.0.0.1:8080/v1",
    "MCP_CHAT_ROOTS": "/no/such/folder",
    "MCP_CHAT_YES": "maybe",
    "MCP_CHAT_TOOL_SEARCH": "sometimes",
}


@pytest.mark.parametrize("name", BAD, ids=str)
def test_a_bad_setting_is_one_line_before_anything_starts(cli, llm, tmp_path, name):
    config, marker = marker_server(tmp_path)
    db = tmp_path / "never.db"
    args = ["--new", "--mcp-config", str(config), "--db", str(db)]
    env = {}
    if name.startswith("--"):
        args += [name, BAD[name]]
    else:
        env[name] = BAD[name]
    r = cli(*args, input="안녕\n", env=env, db=False)
    assert r.code == 2, r.err
    line = r.error_line()
    assert name in line and "허용: " in line and line.endswith("고쳐서 다시 실행하세요."), line
    assert llm.requests == []
    assert not marker.exists() and not db.exists()


@pytest.mark.parametrize("command", [["threads"], ["export", "x"]], ids=str)
def test_an_unknown_language_is_refused_by_every_command(cli, llm, command):
    r = cli(*command, env={"MCP_CHAT_LANG": "fr"})
    assert r.code == 2, r.err
    assert "MCP_CHAT_LANG" in r.error_line()


NOT_UTF8 = b"MCP_CHAT_USER=tester\nCLOVA_STUDIO_MODEL=\xff\xfeHCX\n"


def _trust(home: Path, folder: Path, data: bytes) -> None:
    """The per-user record saying `folder` (with this .env) is trusted, as `mcp-chat trust` writes it."""
    cfg = home / ".config" / "mcp-chat"
    cfg.mkdir(parents=True, mode=0o700, exist_ok=True)
    record = cfg / "trusted-folders.json"
    record.write_text(json.dumps({"version": 1, "folders": [
        {"path": os.path.realpath(folder), "env_sha256": hashlib.sha256(data).hexdigest(), "trusted_at": 0}]}))
    record.chmod(0o600)


@pytest.mark.parametrize("where", ["user", "folder-trusted", "folder-untrusted"])
@pytest.mark.parametrize("command", [["--new"], ["threads"], ["export", "x"]], ids=str)
def test_a_dotenv_that_is_not_utf8_is_one_line_naming_it(cli, llm, tmp_path, where, command):
    home = tmp_path / "home"
    work = tmp_path / "work"
    work.mkdir(parents=True)
    if where == "user":
        env_file = home / ".config" / "mcp-chat" / ".env"
        env_file.parent.mkdir(parents=True)
    else:
        env_file = work / ".env"
    env_file.write_bytes(NOT_UTF8)
    if where == "folder-trusted":
        _trust(home, work, NOT_UTF8)
    config, marker = marker_server(tmp_path)
    p = cli(*command, *(["--mcp-config", str(config)] if command == ["--new"] else []), input="안녕\n",
            env={"HOME": str(home)}, cwd=work)
    err = p.err
    assert p.code == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert str(env_file) in lines[0] and "UTF-8" in lines[0], lines[0]
    assert llm.requests == [] and not marker.exists()
