"""The servers' lifecycle without processes (issue 41): names stay put when a server comes up
later, the per-server start-up timeout and its default, the status line's words."""

from __future__ import annotations

import pytest

from client.core.config import ConfigError, Settings
from client.engine.mcp import ToolHub, server_specs
from client.engine.mcp.server import START_TIMEOUT
from client.engine.mcp.specs import ServerSpec
from client.engine.mcp.starting import STARTUP_ENV, startup_timeout
from client.ui import env_settings, i18n
from client.ui.mcp_view import starting_line
from tests.unit.test_mcp_config import FakeServer, write


def test_a_server_up_later_never_renames_the_tools_already_offered():
    hub = ToolHub([])
    a, b = FakeServer("a", ["echo", "only_a"]), FakeServer("b", ["echo", "b_tool"])
    hub.servers = [a, b]  # type: ignore[list-item]
    hub.order = [a]  # type: ignore[list-item]
    b.state = "connecting"
    hub._build_tools()
    first, v = [t.name for t in hub.tools], hub.version
    assert first == ["echo", "only_a"]
    b.state = "connected"
    hub.order.append(b)  # type: ignore[arg-type]
    hub._build_tools()
    assert [t.name for t in hub.tools] == first + ["b_echo", "b_tool"]  # the newcomer at the end, prefixed
    assert hub.version > v
    hub._names_fresh()  # connect(): nobody saw a name yet, the configuration decides
    hub._build_tools()
    assert [t.name for t in hub.tools] == ["a_echo", "only_a", "b_echo", "b_tool"]


def test_start_up_timeout_per_entry_then_environment_then_default(tmp_path, monkeypatch):
    path = write(tmp_path, {"mcpServers": {"slow": {"command": "x", "startupTimeout": 90}, "quick": {"command": "y"}}})
    slow, quick = server_specs(Settings(mcp_config=path))
    assert slow.startup_timeout == 90.0 and quick.startup_timeout is None
    monkeypatch.delenv(STARTUP_ENV, raising=False)
    assert startup_timeout(slow) == 90.0 and startup_timeout(quick) == START_TIMEOUT == 30.0
    monkeypatch.setenv(STARTUP_ENV, "12.5")
    assert startup_timeout(quick) == 12.5 and startup_timeout(slow) == 90.0
    env_settings.check_chat()
    monkeypatch.setenv(STARTUP_ENV, "-1")
    with pytest.raises(ConfigError):
        env_settings.check_chat()
    for bad in (0, -3, "30", True):
        path = write(tmp_path, {"mcpServers": {"s": {"command": "x", "startupTimeout": bad}}})
        with pytest.raises(ConfigError) as e:
            server_specs(Settings(mcp_config=path))
        assert "startupTimeout" in e.value.fmt["detail"]


def test_the_status_line_names_the_servers_starting_with_a_timer_after_a_few_seconds(monkeypatch):
    i18n.set_lang("ko")
    hub = ToolHub([ServerSpec(f"s{i}", "stdio", command="x") for i in range(6)])
    assert starting_line(hub) is None
    monkeypatch.setattr(hub, "starting", lambda: [("s0", 1.2), ("s1", 1.0)])
    assert starting_line(hub) == "MCP 서버 시작 중: s0, s1"
    monkeypatch.setattr(hub, "starting", lambda: [(f"s{i}", 12.7 - i) for i in range(6)])
    assert starting_line(hub) == "MCP 서버 시작 중 (12초): s0, s1, s2, s3 +2"
    i18n.set_lang("en")
    assert starting_line(hub) == "MCP servers starting (12s): s0, s1, s2, s3 +2"
    i18n.set_lang("ko")
