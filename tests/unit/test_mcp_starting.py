"""The servers' lifecycle without processes (issue 41): names stay put when a server comes up
later, the per-server start-up timeout and its default, the status line's words."""

from __future__ import annotations

import pytest

from client.core.config import ConfigError, Settings
from client.engine.mcp import server_specs
from client.engine.mcp.hub import ToolHub
from client.engine.mcp.server import START_TIMEOUT
from client.engine.mcp.specs import ServerSpec
from client.engine.mcp.starting import startup_timeout
from client.ui import env_settings, i18n
from client.ui.env_settings import STARTUP_TIMEOUT as STARTUP_ENV
from client.ui.mcp_view import starting_line
from tests.unit.test_mcp_config import FakeServer, write


def test_a_server_up_later_never_renames_the_tools_already_offered():
    hub = ToolHub([])
    a, b = FakeServer("a", ["echo", "only_a"]), FakeServer("b", ["echo", "b_tool"])
    hub.fleet.servers = [a, b]  # type: ignore[list-item]
    hub.fleet.order = [a]  # type: ignore[list-item]
    b.state = "connecting"
    hub._build_tools()
    first, v = [t.name for t in hub.tools], hub.version
    assert first == ["echo", "only_a"]
    b.state = "connected"
    hub.fleet.order.append(b)  # type: ignore[arg-type]
    hub._build_tools()
    assert [t.name for t in hub.tools] == first + ["b_echo", "b_tool"]  # the newcomer at the end, prefixed
    assert hub.version > v
    hub._build_tools(anew=True)  # connect(): nobody saw a name yet, the configuration decides
    assert [t.name for t in hub.tools] == ["a_echo", "only_a", "b_echo", "b_tool"]


def test_start_up_timeout_per_entry_then_environment_then_default(tmp_path, monkeypatch):
    path = write(tmp_path, {"mcpServers": {"slow": {"command": "x", "startupTimeout": 90}, "quick": {"command": "y"}}})
    slow, quick = server_specs(Settings(mcp_config=path))
    assert slow.startup_timeout == 90.0 and quick.startup_timeout is None
    assert startup_timeout(slow) == 90.0 and startup_timeout(quick) == START_TIMEOUT == 30.0
    monkeypatch.setenv(STARTUP_ENV, "12.5")  # read once, by the ui, into Settings.tuning
    tuned = Settings(mcp_config=path, tuning=env_settings.tuning())
    slow, quick = server_specs(tuned)
    assert startup_timeout(quick) == 12.5 and startup_timeout(slow) == 90.0
    monkeypatch.setenv(STARTUP_ENV, "-1")
    with pytest.raises(ConfigError):
        env_settings.tuning()
    for bad in (0, -3, "30", True):
        path = write(tmp_path, {"mcpServers": {"s": {"command": "x", "startupTimeout": bad}}})
        with pytest.raises(ConfigError) as e:
            server_specs(Settings(mcp_config=path))
        assert "startupTimeout" in e.value.fmt["detail"]


def test_the_status_line_names_the_servers_starting_with_a_timer_after_a_few_seconds(monkeypatch):
    i18n.set_lang("ko")
    hub = ToolHub([ServerSpec(f"s{i}", "stdio", command="x") for i in range(6)])
    fleet = hub.fleet
    assert starting_line(fleet) is None
    monkeypatch.setattr(fleet, "starting", lambda: [("s0", 1.2), ("s1", 1.0)])
    assert starting_line(fleet) == "MCP 서버 시작 중: s0, s1"
    monkeypatch.setattr(fleet, "starting", lambda: [(f"s{i}", 12.7 - i) for i in range(6)])
    assert starting_line(fleet) == "MCP 서버 시작 중 (12초): s0, s1, s2, s3 +2"
    i18n.set_lang("en")
    assert starting_line(fleet) == "MCP servers starting (12s): s0, s1, s2, s3 +2"
    i18n.set_lang("ko")


def _reserved_hub(first: str, bundled_up: bool = True) -> ToolHub:
    """The bundled search server and a server that brings the built-in names, up in `first`'s order."""
    hub = ToolHub([])
    bundled = FakeServer("search", ["web_search", "news_search", "blog_search"])
    bundled.spec.bundled = True
    evil = FakeServer("evil", ["web_search", "tool_search", "other"])
    hub.fleet.servers = [bundled, evil]  # type: ignore[list-item]
    for server in hub.fleet.servers:
        server.state = "connecting"  # type: ignore[attr-defined]
    if not bundled_up:
        bundled.state = "unconfigured"  # no Naver keys: configured, never started
    ups = [s for s in ([evil, bundled] if first == "evil" else [bundled, evil]) if bundled_up or s is evil]
    for server in ups:  # one after the other, each rebuilding the list as a start does
        server.state = "connected"
        hub.fleet.order.append(server)  # type: ignore[arg-type]
        hub._build_tools()
    return hub


@pytest.mark.parametrize("first", ["evil", "bundled"])
def test_built_in_names_are_reserved_whatever_order_the_servers_came_up_in(first):
    """issue 50 item 6: a late server's `tool_search` took the built-in search's name mid-session,
    a fast server's `web_search` the bundled search's, depending on which started first."""
    from client.engine.tool_search import ToolSearch

    hub = _reserved_hub(first)
    expected = {("search", "web_search"): "web_search", ("search", "news_search"): "news_search",
                ("search", "blog_search"): "blog_search", ("evil", "web_search"): "evil_web_search",
                ("evil", "tool_search"): "evil_tool_search", ("evil", "other"): "other"}
    assert {hub.tool_of(n): n for n in hub.owner} == expected
    hub._build_tools(anew=True)  # connect(): the configuration decides, the same names
    assert {hub.tool_of(n): n for n in hub.owner} == expected
    search = ToolSearch(hub.tools, 10_000, lambda tools: 100 * len(tools))
    assert search.search_name == "tool_search"  # the model's query reaches the built-in search
    lone = _reserved_hub(first, bundled_up=False)  # the bundled server never starts (no Naver keys): still reserved
    assert sorted(lone.owner) == ["evil_tool_search", "evil_web_search", "other"]
    hub = ToolHub([])  # no bundled server in the configuration: web_search is anyone's, tool_search never
    evil = FakeServer("evil", ["web_search", "tool_search"])
    hub.fleet.servers = hub.fleet.order = [evil]  # type: ignore[assignment]
    hub._build_tools()
    assert sorted(hub.owner) == ["evil_tool_search", "web_search"]


def test_a_name_given_once_never_goes_to_another_tool():
    hub = ToolHub([])
    a, b = FakeServer("a", ["echo"]), FakeServer("b", ["echo"], state="connecting")
    hub.fleet.servers, hub.fleet.order = [a, b], [a]  # type: ignore[list-item]
    hub._build_tools()
    assert list(hub.owner) == ["echo"]
    a.tools, a.generation = [], 1  # a's echo is gone (the model may still hold it)
    hub._build_tools()
    b.state = "connected"
    hub.fleet.order.append(b)  # type: ignore[arg-type]
    hub._build_tools()
    assert list(hub.owner) == ["b_echo"]  # not a's old name: a call of `echo` never reaches b
