"""client.core.secrets: one list of secret variables, one redactor, no leaked tails.

SHORT is a prefix of LONG: a redactor that masks SHORT first leaves LONG's tail ("efgh")
behind. Every public path that masks text is fed both, in the order that would leak.
"""

from __future__ import annotations

import os

import pytest
from langchain_core.messages import HumanMessage

from client.core import secrets
from client.core.config import Settings
from client.core.secrets import (MIN_LEN, SECRET_VARS, Redactor, env_secrets, redact, redact_db_error, remember,
                                 settings_secrets, spec_secrets)
from client.engine.frontend import Frontend
from client.engine.mcp.permissions import CallInfo, Permissions, ToolKey
from client.engine.mcp.specs import bundled_spec, parse_entry

SHORT, LONG, TAIL = "abcd", "abcdefgh", "efgh"
TEXT = f"key={LONG} and {SHORT}!"


@pytest.fixture
def env(monkeypatch):
    for n in SECRET_VARS:
        monkeypatch.delenv(n, raising=False)
    monkeypatch.delenv("CHECKPOINT_DB", raising=False)
    monkeypatch.setenv("NAVER_CLIENT_ID", SHORT)  # listed before the longer one: the leaking order
    monkeypatch.setenv("OPENAI_API_KEY", LONG)
    monkeypatch.setattr(secrets, "_remembered", set())  # what this test learns stays in it
    monkeypatch.setattr(secrets, "_cache", None)
    remember(env_secrets(os.environ))  # as the ui does once the environment is settled (client/ui/cli.py)
    return monkeypatch


def no_tail(out: str) -> None:
    assert LONG not in out and SHORT not in out and TAIL not in out, out


def test_redactor_masks_the_longest_match_and_overlaps():
    assert Redactor([SHORT, LONG])(TEXT) == "key=*** and ***!"
    assert redact(TEXT, [SHORT, LONG]) == redact(TEXT, [LONG, SHORT])
    # overlapping secrets: neither order of replacement may leave a piece of either
    assert Redactor(["xyzabcd", LONG])("_xyzabcdefgh_") == "_***_"
    assert Redactor([])(TEXT) == TEXT


def test_short_values_are_not_secrets():
    assert MIN_LEN == 4
    assert Redactor(["abc", "", "on"])("abc on") == "abc on"
    assert Redactor(["abc"]).secrets == [] and not Redactor(["abc"])


def test_env_secrets_is_the_one_list(env):
    env.setenv("CHECKPOINT_DB", "postgresql://u:pw-9999@h/db")
    assert set(env_secrets(os.environ)) == {SHORT, LONG, "pw-9999"}
    assert env_secrets(os.environ) == sorted(env_secrets(os.environ), key=len, reverse=True)


def test_settings_secrets_add_the_key_and_db_password(env):
    s = Settings(api_key="sk-own-1234", db="postgresql://u:dbpw-1@h/x")
    assert {"sk-own-1234", "dbpw-1", SHORT, LONG} <= set(settings_secrets(s))


def test_spec_secrets_take_env_headers_and_bare_bearer_tokens():
    got = spec_secrets({"K": LONG, "DEBUG": "1"}, {"Authorization": "Bearer tok-lit-777"})
    assert set(got) == {LONG, "Bearer tok-lit-777", "tok-lit-777"}


def test_mcp_spec_paths(env):
    spec = parse_entry("s", {"url": "http://127.0.0.1:9/mcp", "headers": {"X-A": SHORT, "X-B": LONG}}, "p")
    no_tail(spec.redact(TEXT))
    assert SHORT not in spec.shown and LONG not in spec.shown
    no_tail(bundled_spec(env=os.environ).redact(TEXT))  # OPENAI_API_KEY is a secret here too now


async def test_permission_question_masks_arguments():
    asked = []

    async def approver(req):
        asked.append(req)
        return "deny"

    class Asks(Frontend):
        async def approve(self, request):
            return await approver(request)

    perms = Permissions(frontend=Asks(), secrets=[SHORT, LONG])
    await perms.check(CallInfo(ToolKey("fs", "write"), "node fs.js"), {"text": TEXT})
    no_tail(asked[0].args)


def test_render_and_debug_traceback(env):
    from client.ui.render import debug_traceback
    from client.ui.render import redact as ui_redact

    no_tail(ui_redact(TEXT, [SHORT, LONG]))
    try:
        raise RuntimeError(TEXT)
    except RuntimeError:
        no_tail(debug_traceback([SHORT, LONG]))


def test_cli_error_report(env, capsys):
    from client.ui.cli import report

    assert report(RuntimeError(TEXT), [], debug=True) != 0
    err = capsys.readouterr().err
    no_tail(err)
    assert "***" in err


def test_exports(env):
    from client.ui.export import to_json, to_markdown

    rows = [(1, HumanMessage(content=TEXT))]
    no_tail(to_markdown(None, rows))
    no_tail(to_json(None, rows))
    no_tail(to_markdown(None, rows, secrets=[SHORT, LONG]))


def test_db_error_masks_url_and_password():
    url = f"postgresql://bob:{LONG}@h/db"
    out = redact_db_error(f'connection to "{url}" failed: password {LONG} / {SHORT}', url)
    assert LONG not in out and TAIL not in out and "bob:***@h" in out


class _EchoServer:
    """Stands in for ServerConn: the tool's result and its failure both quote the secrets."""

    def __init__(self, fail: bool) -> None:
        from mcp import types

        self.spec = parse_entry("echo", {"command": "x", "env": {"A": SHORT, "B": LONG}}, "p")
        self.tools = [types.Tool(name="echo", inputSchema={"type": "object"})]
        self.state, self.fail = "connected", fail
        self.live, self.generation = True, 0  # listed by this process (hub.py checks calls against it)

    async def call(self, tool, args, progress):
        from mcp import types

        if self.fail:
            raise RuntimeError(TEXT)
        return types.CallToolResult(content=[types.TextContent(type="text", text=TEXT)])


@pytest.mark.parametrize("fail", [False, True])
async def test_tool_results_and_errors_reaching_the_model(fail):
    from client.engine.mcp.hub import ToolHub

    hub = ToolHub([])
    hub.fleet.servers = hub.fleet.order = [_EchoServer(fail)]  # type: ignore[assignment]
    hub._build_tools()
    msg = await hub.tools[0].ainvoke({"type": "tool_call", "id": "c1", "name": "echo", "args": {}})
    assert msg.status == ("error" if fail else "success")
    no_tail(msg.content)
