"""client.engine.mcp.specs and hub naming: the mcpServers file, ${VAR}, masking, collisions."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mcp import types

from client.core.config import ConfigError, Settings
from client.ui.i18n import t
from client.engine.mcp import ServerSpec, load_config, server_specs
from client.engine.mcp.hub import ToolHub
from client.engine.mcp.hub import _fn_name
from client.ui.mcp_view import describe_tools


def write(tmp_path: Path, doc: object) -> str:
    p = tmp_path / "mcp.json"
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(p)


def settings(**kw: object) -> Settings:
    if "server_urls" in kw:
        kw["server_urls"] = tuple(kw["server_urls"])  # type: ignore[arg-type]
    return Settings(**kw)  # type: ignore[arg-type]


def test_stdio_and_http_entries(tmp_path, monkeypatch):
    monkeypatch.setenv("EV_TOKEN", "tok-SECRET-123")
    path = write(tmp_path, {"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "pkg", "${HOME_DIR:-/tmp}"], "env": {"API_KEY": "${EV_TOKEN}"}},
        "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${EV_TOKEN}"}},
        "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
        "off": {"command": "x", "disabled": True},
    }})
    files, remote, old, off = load_config(path, os.environ)  # ${VAR}: from the environment given
    assert off.enabled is False and off.command == "x"  # kept, never started (test_mcp_disabled.py)
    assert files.enabled and remote.enabled and old.enabled
    assert (files.transport, files.command, files.args) == ("stdio", "npx", ["-y", "pkg", "/tmp"])
    assert files.env == {"API_KEY": "tok-SECRET-123"}
    assert remote.transport == "http" and remote.headers == {"Authorization": "Bearer tok-SECRET-123"}
    assert old.transport == "sse"
    for spec in (files, remote):
        assert "tok-SECRET-123" not in spec.shown and "***" in spec.shown
        assert "tok-SECRET-123" not in spec.redact("x tok-SECRET-123 y Bearer tok-SECRET-123")


@pytest.mark.parametrize("entry, words", [
    ({}, ["'bad'", "command", "url"]),
    ({"command": "a", "url": "http://x"}, ["'bad'"]),
    ({"url": "not a url"}, ["'bad'", "not a url"]),
    ({"url": "ftp://host/x"}, ["'bad'", "ftp://host/x"]),
    ({"command": "a", "args": "x"}, ["'bad'", "args"]),
    ({"command": "a", "env": {"K": ["v"]}}, ["'bad'", "env.K"]),
    ({"command": "a", "type": "websocket"}, ["'bad'", "websocket"]),
    ({"url": "http://x/mcp", "type": "stdio"}, ["'bad'", "stdio"]),
    ({"command": "a", "timeout": -1}, ["'bad'", "timeout"]),
    ({"command": "a", "protocol": "2099-01-01"}, ["'bad'", "protocol", "2026-07-28"]),
    ({"command": "a", "protocol": 2026}, ["'bad'", "protocol"]),
    # typed fields (client/engine/mcp/entries.py): a wrong type is refused, never coerced
    ({"command": "a", "alwaysAllow": "*"}, ["'bad'", "alwaysAllow", "list"]),  # not every tool, nor "*" as letters
    ({"command": "a", "startupTimeout": True}, ["'bad'", "startupTimeout"]),
    ({"command": "a", "args": ["x", {"$ref": "y"}]}, ["'bad'", "args.1"]),
    ({"url": "https://h/mcp", "headers": ["Authorization: x"]}, ["'bad'", "headers"]),
    ({"url": "https://h/mcp", "oauth": {"redirectPort": "8080; x"}}, ["'bad'", "oauth.redirectPort"]),
    ({"url": "https://h/mcp", "oauth": {"clientId": ["a", "b"]}}, ["'bad'", "oauth.clientId"]),
    ("just a string", ["'bad'"]),
    ({"url": "https://h/mcp", "oauth": {"clientMetadataUrl": "http://h/client.json"}}, ["'bad'", "clientMetadataUrl"]),
    ({"url": "https://h/mcp", "oauth": {"clientMetadataUrl": "https://h/"}}, ["'bad'", "clientMetadataUrl"]),
    ({"url": "https://h/mcp", "oauth": {"grant": "password"}}, ["'bad'", "grant", "client_credentials"]),
    ({"url": "https://h/mcp", "oauth": {"grant": "client_credentials", "clientId": "a"}}, ["'bad'", "privateKey"]),
])
def test_bad_entries_name_the_entry(tmp_path, entry, words):
    path = write(tmp_path, {"mcpServers": {"good": {"command": "ok"}, "bad": entry}})
    with pytest.raises(ConfigError) as e:
        load_config(path)
    line = t(e.value.key, **e.value.fmt)
    assert "\n" not in line and path in line
    for w in words:
        assert w in line


def test_protocol_pins_the_revision_a_server_is_spoken_to_in(tmp_path):
    path = write(tmp_path, {"mcpServers": {name: {"command": "x", **({"protocol": p} if p else {})} for name, p in
                                           [("plain", None), ("old", "legacy"), ("dated", "2025-06-18"),
                                            ("new", "2026-07-28")]}})
    assert [s.protocol for s in load_config(path)] == ["auto", "legacy", "legacy", "2026-07-28"]


def test_oauth_settings_take_variables_and_their_secrets_are_masked(tmp_path, monkeypatch):
    key = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----"
    monkeypatch.setenv("M2M_KEY", key)
    path = write(tmp_path, {"mcpServers": {
        "m2m": {"url": "https://h/mcp", "oauth": {"grant": "client_credentials", "clientId": "svc",
                                                   "privateKey": "${M2M_KEY}", "issuer": "https://auth.h"}},
        "user": {"url": "https://h2/mcp", "oauth": {"clientMetadataUrl": "https://me.example/mcp-chat.json"}}}})
    m2m, user = load_config(path, os.environ)
    assert m2m.oauth == {"grant": "client_credentials", "clientId": "svc", "privateKey": key, "issuer": "https://auth.h"}
    assert user.oauth == {"grant": "authorization_code", "clientMetadataUrl": "https://me.example/mcp-chat.json"}
    assert "MIGHAgEAMBMGByqGSM49" not in m2m.redact(f"echo {key}")


def test_unset_variable_names_entry_and_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("NOPE_VAR", raising=False)
    path = write(tmp_path, {"mcpServers": {"svc": {"url": "http://h/mcp", "headers": {"X": "${NOPE_VAR}"}}}})
    with pytest.raises(ConfigError) as e:
        load_config(path, os.environ)
    assert e.value.key == "mcp_config_var" and e.value.fmt["name"] == "svc" and e.value.fmt["var"] == "NOPE_VAR"


def test_invalid_json_and_shape_and_missing_file(tmp_path):
    with pytest.raises(ConfigError) as e:
        load_config(write(tmp_path, '{"mcpServers": {"a": {"command": "x",}}}'))
    assert e.value.key == "mcp_config_json" and e.value.fmt["line"] == 1
    with pytest.raises(ConfigError) as e:
        load_config(write(tmp_path, {"servers_typo": {}}))
    assert e.value.key == "mcp_config_shape"
    with pytest.raises(ConfigError) as e:
        load_config(str(tmp_path / "missing.json"))
    assert e.value.key == "mcp_config_unreadable"


def test_a_file_without_mcpservers_says_what_it_has(tmp_path, monkeypatch):
    """VS Code's `servers` is read as `mcpServers` (with its ${env:VAR}); a file with neither, a typo
    of it, both at once or a VS Code ${input:...} (nothing here can prompt for it) is one line
    naming what to change, never a file that quietly configures nothing."""
    monkeypatch.setenv("VS_TOKEN", "tok-123456789012")
    vs = write(tmp_path, {"servers": {"gh": {"type": "http", "url": "https://h/mcp",
                                             "headers": {"Authorization": "Bearer ${env:VS_TOKEN}"}}}})
    [spec] = load_config(vs, os.environ)
    assert spec.headers == {"Authorization": "Bearer tok-123456789012"}
    for doc, key, field in (({"mcpServer": {}}, "mcp_config_typo", {"found": "mcpServer"}),
                            ({"globalShortcut": "x"}, "mcp_config_shape", {"keys": '"globalShortcut"'}),
                            ({"mcpServers": {}, "servers": {"a": {"command": "x"}}}, "mcp_config_both", {}),
                            ({"servers": {"gh": {"url": "https://h/mcp", "headers": {"X": "${input:tok}"}}}},
                             "mcp_config_input", {"ref": "${input:tok}"})):
        with pytest.raises(ConfigError) as e:
            load_config(write(tmp_path, doc))
        assert e.value.key == key and field.items() <= e.value.fmt.items(), e.value.fmt
        line = t(e.value.key, **e.value.fmt)
        assert "\n" not in line and str(tmp_path) in line


def test_bundled_default_and_alongside(tmp_path):
    assert [s.name for s in server_specs(settings())] == ["search"]
    assert server_specs(settings())[0].bundled
    url = ["http://127.0.0.1:3001/mcp", "http://127.0.0.1:3001/mcp"]
    assert [s.name for s in server_specs(settings(server_urls=url))] == ["127.0.0.1-3001", "127.0.0.1-3001-2"]
    path = write(tmp_path, {"mcpServers": {"search": {"url": "http://h/mcp"}}})
    names = [s.name for s in server_specs(settings(mcp_config=path, with_search=True))]
    assert names == ["bundled-search", "search"]
    with pytest.raises(ConfigError) as e:
        server_specs(settings(server_urls=["localhost:8000"]))
    assert e.value.key == "mcp_bad_url"


class FakeServer:
    def __init__(self, name: str, tools: list[str], state: str = "connected") -> None:
        self.spec = ServerSpec(name=name, transport="stdio", shown=name)
        self.tools = [types.Tool(name=n, description=f"{n} of {name}", inputSchema={"type": "object"}) for n in tools]
        self.state, self.error, self.restarts = state, None if state == "connected" else "boom", 0
        self.live, self.generation = True, 0


def test_colliding_names_get_server_prefix_others_stay():
    hub = ToolHub([])
    hub.fleet.servers = [FakeServer("a", ["echo", "only.a"]), FakeServer("b b", ["echo", "b-tool"]),
                         FakeServer("dead", ["echo"], state="failed")]  # type: ignore[list-item]
    hub.fleet.order = hub.fleet.servers[:2]  # up; "dead" failed to start
    hub._build_tools()
    assert [tool.name for tool in hub.tools] == ["a_echo", "only_a", "b_b_echo", "b-tool"]
    assert hub.owner["only_a"][1].name == "only.a"  # calls use the server's own name
    lines = describe_tools(hub)
    assert lines[0].startswith("[a] ") and "  a_echo (echo): echo of a" in lines
    assert any(line.startswith("[dead] ") and "boom" in line for line in lines)
    assert hub.fleet.error == "dead: boom"


def test_function_names_are_endpoint_safe():
    assert _fn_name("get-sum") == "get-sum"
    assert _fn_name("ns/tool.v2") == "ns_tool_v2"
    assert len(_fn_name("x" * 100)) == 64


def test_a_switched_off_entry_is_kept_as_a_disabled_spec(tmp_path, monkeypatch):
    monkeypatch.setenv("OFF_TOKEN", "tok-OFF-SECRET-9")
    path = write(tmp_path, {"mcpServers": {
        "a": {"command": "x", "enabled": False, "env": {"K": "${OFF_TOKEN}"}},
        "b": {"url": "http://127.0.0.1:9/mcp", "disabled": True},
        "c": {"command": "y", "enabled": True, "disabled": False},
        "broken": {"enabled": False},  # switched off because it is broken: skipped, not an error
        "unset": {"command": "z", "disabled": True, "args": ["${NO_SUCH_VAR_41}"]},
    }})
    a, b, c = load_config(path, os.environ)
    assert (a.name, a.enabled, a.env) == ("a", False, {"K": "tok-OFF-SECRET-9"})
    assert "tok-OFF-SECRET-9" not in a.shown and "tok-OFF-SECRET-9" in a.secrets  # parsed like the others
    assert (b.name, b.enabled, b.transport) == ("b", False, "http")
    assert c.enabled


@pytest.mark.parametrize("entry", [{"command": "x", "enabled": "false"}, {"command": "x", "disabled": 1}])
def test_enabled_and_disabled_must_be_booleans(tmp_path, entry):
    with pytest.raises(ConfigError) as e:
        load_config(write(tmp_path, {"mcpServers": {"bad": entry}}))
    assert e.value.fmt["name"] == "bad" and "true or false" in str(e.value.fmt["detail"])


def test_only_disabled_servers_leave_the_bundled_search_on(tmp_path):
    path = write(tmp_path, {"mcpServers": {"off": {"command": "x", "enabled": False}}})
    assert [(s.name, s.enabled) for s in server_specs(settings(mcp_config=path))] == [("search", True), ("off", False)]


def test_variables_come_from_the_environment_handed_down_never_the_process(tmp_path, monkeypatch):
    """An entry is typed data (client/engine/mcp/entries.py), its expansion a pure pass over the
    environment given (the ui's): the process's own environment is never read below the ui."""
    from client.engine.mcp.entries import HttpEntry, expand, validate

    monkeypatch.setenv("EV_TOKEN", "tok-PROCESS-000")
    raw = {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${EV_TOKEN}", "X-Trace": "${TRACE:-trace-on}"}}
    given = validate(raw)
    assert isinstance(given, HttpEntry) and given.headers["Authorization"] == "Bearer ${EV_TOKEN}"  # nothing expanded
    done, secrets, known = expand(given, {"EV_TOKEN": "tok-GIVEN-123"})
    assert done.headers == {"Authorization": "Bearer tok-GIVEN-123", "X-Trace": "trace-on"} and given.headers == raw["headers"]
    assert {"tok-GIVEN-123", "Bearer tok-GIVEN-123", "trace-on"} <= set(secrets) and "tok-GIVEN-123" in known
    assert "trace-on" not in known  # X-Trace is no credential by its name: masked in this server's output only
    path = write(tmp_path, {"mcpServers": {"svc": raw}})
    with pytest.raises(ConfigError) as e:
        load_config(path)  # no environment given: none read
    assert e.value.fmt["var"] == "EV_TOKEN"
    assert [s.headers["Authorization"] for s in load_config(path, {"EV_TOKEN": "tok-GIVEN-123"})] == ["Bearer tok-GIVEN-123"]
