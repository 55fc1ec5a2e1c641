"""`"enabled": false` in an mcpServers entry: kept, listed as disabled, never started (issue 41).

The disabled server's command would create a marker file the moment it ran
(tests/faults/files.py). In-process: the hub connects its other server and lists this one as
disabled. The real client, piped: /servers lists it, and when the process has exited the marker
is still absent.
"""

from __future__ import annotations

import json
import sys

import pytest

from client.engine.mcp import load_config
from client.engine.mcp.hub import ToolHub
from client.ui.mcp_view import describe_servers, describe_tools
from tests.conftest import ROOT
from tests.faults.files import marker_server

pytestmark = pytest.mark.sqlite_only
MANY = ROOT / "tests" / "stubs" / "many_tools_server.py"


def config_with_disabled_marker(tmp_path, key: str = "enabled", value: bool = False):
    config, marker = marker_server(tmp_path)
    doc = json.loads(config.read_text())
    doc["mcpServers"]["marker"][key] = value
    doc["mcpServers"]["github"] = {"command": sys.executable, "args": [str(MANY), "github"]}
    config.write_text(json.dumps(doc))
    return str(config), marker


@pytest.mark.parametrize("key, value", [("enabled", False), ("disabled", True)])
async def test_the_hub_never_starts_a_disabled_server(tmp_path, key, value):
    config, marker = config_with_disabled_marker(tmp_path, key, value)
    hub = ToolHub(load_config(config))
    try:
        await hub.fleet.connect()
        assert hub.fleet.error is None and hub.fleet.failed() == []  # disabled is not failed
        assert [s.spec.name for s in hub.fleet.servers] == ["github"] and len(hub.tools) == 8
        assert [s.name for s in hub.fleet.disabled] == ["marker"] and hub.fleet.disabled[0].command == "/bin/sh"
        rows = describe_servers(hub)
        assert rows[-1].startswith("marker: 꺼 둠 (설정에서 끔) · stdio /bin/sh") and rows[-1].endswith("도구 0개")
        assert describe_tools(hub)[-1] == "[marker] 꺼 둠 (설정에서 끔) · 도구 0개"
    finally:
        await hub.fleet.aclose()
    assert not marker.exists()


def test_the_client_lists_it_and_never_runs_its_command(chat, tmp_path):
    config, marker = config_with_disabled_marker(tmp_path)
    r = chat("--new", "--no-memory", "--mcp-config", config, "--require-tools", input="/servers\n")
    assert r.code == 0, r.err
    both = r.out + r.err
    assert "marker: 꺼 둠 (설정에서 끔)" in both and "github: 연결됨" in both
    assert not marker.exists()  # the process is gone: whatever it started has run by now
