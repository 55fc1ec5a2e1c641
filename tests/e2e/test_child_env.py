"""A stdio MCP server starts with what it needs: the base set and its entry's own values.

The client runs with the user's keys and with variables that would make a loader or an
interpreter run foreign code; the configured server (a Python one-liner that records its
environment and exits) sees none of them.
"""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import TEST_KEY, CliRunner

pytestmark = pytest.mark.sqlite_only
HIJACK = {"LD_LIBRARY_PATH": "/nonexistent/lib", "NODE_OPTIONS": "--require /nonexistent/evil.js",
          "PYTHONSTARTUP": "/nonexistent/evil.py", "BASH_ENV": "/nonexistent/evil.sh",
          "PERL5OPT": "-M/nonexistent", "RUBYOPT": "-r/nonexistent"}


def test_stdio_server_env_is_filtered(tmp_path, llm, naver):
    out = tmp_path / "server-env.json"
    code = f"import json, os; open({str(out)!r}, 'w').write(json.dumps(dict(os.environ)))"
    entry = {"command": sys.executable, "args": ["-I", "-c", code], "env": {"ENTRY_TOKEN": "entry-value"}}
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": {"recorder": entry}}))
    chat = CliRunner(tmp_path, llm, naver)  # in this process (tests/cli.py): its children get what a process's would
    r = chat("--new", "--no-memory", "--mcp-config", str(tmp_path / "mcp.json"), input="",
             env={**HIJACK, "LANG": "C.UTF-8"})
    assert r.code == 0, r.err
    env = json.loads(out.read_text())
    assert env["ENTRY_TOKEN"] == "entry-value"
    assert env["PATH"] == chat.env["PATH"] and env["HOME"] == str(tmp_path) and env["LANG"] == "C.UTF-8"
    leaked = set(env) & {*HIJACK, "PYTHONPATH", "CLOVA_STUDIO_API_KEY", "NAVER_CLIENT_SECRET", "NAVER_CLIENT_ID",
                         "CLOVA_STUDIO_BASE_URL"}
    assert not leaked, leaked
    assert TEST_KEY not in out.read_text()
