"""docs/mcp-server-guide.md runs as written: its server (MCP SDK 2.x `MCPServer`) answers mcp-chat
over stdio from its `mcp.json` (a path relative to the chat's folder) and over streamable HTTP; the
read-only tool runs unasked, the other one through `alwaysAllow` and is refused without it in `-p`;
the page's `mcp-chat` lines run. The page's own blocks are used, so a stale page fails here."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.docblocks import Shell, blocks, commands

PAGE = "docs/mcp-server-guide.md"
COUNT = '[tool:count_words {"text": "하나 둘 셋"}]'
SAVE = '[tool:save_note {"text": "우유 사기"}]'


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A new folder holding the page's server and its stdio mcp.json."""
    work = tmp_path / "memo"
    work.mkdir()
    (work / "my_server.py").write_text(blocks(PAGE, "python")[0], encoding="utf-8")
    (work / "mcp.json").write_text(blocks(PAGE, "json")[0], encoding="utf-8")
    return work


def on_path(env: dict[str, str]) -> dict[str, str]:
    """`python` is the environment with mcp 2.x, as after the quick start's activation."""
    return {"PATH": f"{Path(sys.executable).parent}:{env['PATH']}"}


def calls(r) -> list[dict]:
    assert r.code == 0, r.err
    return json.loads(r.out)["tool_calls"]


def test_the_guides_server_over_stdio(cli, folder):
    env = on_path(cli.env)
    [call] = calls(cli("--mcp-config", "mcp.json", "-p", COUNT, "--output-format", "json", cwd=folder, env=env))
    assert (call["name"], call["error"]) == ("count_words", False) and "3" in call["result"]  # read-only: not asked
    [call] = calls(cli("--mcp-config", "mcp.json", "-p", SAVE, "--output-format", "json", cwd=folder, env=env))
    assert call["error"] is False and (folder / "notes.txt").read_text(encoding="utf-8") == "우유 사기\n"  # alwaysAllow
    entry = json.loads(blocks(PAGE, "json")[0])
    del entry["mcpServers"]["memo"]["alwaysAllow"]
    (folder / "strict.json").write_text(json.dumps(entry))
    [call] = calls(cli("--mcp-config", "strict.json", "-p", SAVE, "--output-format", "json", cwd=folder, env=env))
    assert call["error"] is True and (folder / "notes.txt").read_text(encoding="utf-8") == "우유 사기\n"  # no one to ask


def test_the_guides_server_over_http(cli, folder):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "my_server.py", "--http", "--port", str(port)], cwd=folder,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + 60  # a hang detector: the sign is the port accepting
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
                assert time.monotonic() < end, "the guide's HTTP server never listened"
                time.sleep(0.05)
        config = blocks(PAGE, "json")[1].replace("8765", str(port))
        (folder / "http.json").write_text(config, encoding="utf-8")
        [call] = calls(cli("--mcp-config", "http.json", "-p", COUNT, "--output-format", "json", cwd=folder))
        assert call["name"] == "count_words" and "3" in call["result"]
        [call] = calls(cli("--mcp-config", "http.json", "-p", SAVE, "--output-format", "json", cwd=folder))
        assert call["error"] is False and (folder / "notes.txt").read_text(encoding="utf-8") == "우유 사기\n"  # the server's folder
    finally:
        server.terminate()
        server.wait(30)


@pytest.mark.slow  # three processes
def test_the_guides_commands_run(chat, folder):
    shell = Shell(folder, {**chat.env, "HOME": str(folder.parent)})
    lines = commands(blocks(PAGE, "bash")[0])
    assert len(lines) == 3 and all("mcp-chat" in ln for ln in lines)
    for line in lines:
        done = shell.run(line)
        assert done.returncode == 0, (line, done.stderr.decode())
    assert "count_words" in done.stdout.decode() and "save_note" in done.stdout.decode()  # /tools
