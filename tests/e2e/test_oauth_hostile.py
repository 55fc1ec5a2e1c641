"""Issue 50 item 8, OAuth: what a hostile authorization server (tests/stubs/oauth_server.py, real HTTP
on loopback) can make the client do, through the command line in this process (tests/cli.py).

- Its metadata names token and registration endpoints on another local port: nothing is sent
  there unasked (a pipe refuses with one line), and at a terminal the user is asked.
- Its token error writes the configured client secret back with `\\u200b` as text between the
  characters (JSON's escape of a zero-width space): the line the user sees is masked.
"""

from __future__ import annotations

import pytest

from client.core.redactor import FRAGMENT
from client.engine.frontend import Frontend
from client.engine.mcp.hub import ToolHub
from client.engine.mcp.features import ClientFeatures
from client.engine.mcp.specs import ServerSpec
from tests.e2e.test_mcp_everything import write_config
from tests.stubs.oauth_server import HostileAuth

pytestmark = pytest.mark.sqlite_only
SECRET = "oauth-client-secret-5f3a9c2e7b"


def test_credentials_never_go_to_an_endpoint_off_the_authorization_server_unasked(cli, llm, tmp_path):
    with HostileAuth(None) as canary, HostileAuth(canary.base) as auth:
        config = write_config(tmp_path, {"remote": {"url": auth.url}})
        r = cli("--new", "--mcp-config", config, "--no-memory", input="안녕\n", timeout=60)
    assert r.code == 0, r.err  # the chat goes on without that server
    assert canary.requests == []  # neither registration nor token request reached the other port
    told = [ln for ln in r.err.splitlines() if "remote" in ln]
    assert len(told) == 1 and f"refused to send OAuth credentials to {canary.base}/register" in told[0]
    assert llm.requests  # the message was answered


class Yes(Frontend):
    def __init__(self) -> None:
        self.asked: list[tuple[str, str, str]] = []

    async def confirm(self, kind: str, server: str, summary: str) -> bool:
        self.asked.append((kind, server, summary))
        return True


async def test_at_a_terminal_the_user_is_asked_and_may_allow_it(tmp_path):
    front = Yes()
    with HostileAuth(None) as canary, HostileAuth(canary.base) as auth:
        hub = ToolHub([ServerSpec("remote", "http", url=auth.url, oauth={})],
                      features=ClientFeatures(frontend=front, user="u", data=tmp_path), frontend=front)
        try:
            await hub.fleet.connect()
        finally:
            await hub.fleet.aclose()
    assert front.asked and front.asked[0][:2] == ("oauth_endpoint", "remote")
    assert f"{canary.base}/register" in front.asked[0][2] and auth.base in front.asked[0][2]
    assert ("POST", "/register") in canary.requests  # allowed: sent


def test_an_oauth_error_that_echoes_the_secret_with_escaped_zero_width_spaces_is_masked(cli, llm, tmp_path):
    with HostileAuth() as auth:
        config = write_config(tmp_path, {"remote": {"url": auth.url,
                                                    "oauth": {"clientId": "c1", "clientSecret": SECRET}}})
        r = cli("--new", "--mcp-config", config, "--no-memory", input="안녕\n", timeout=60,
                env={"MCP_CHAT_OAUTH_HEADLESS": "1"})
    assert ("POST", "/token") in auth.requests  # the flow got as far as the echo
    line = next(ln for ln in r.err.splitlines() if "Token exchange failed" in ln)
    assert "wrong secret: ***" in line
    view = (r.out + r.err).replace("\\u200b", "")  # what a reader (or a JSON parser) makes of it
    assert not any(SECRET[i:i + FRAGMENT] in view for i in range(len(SECRET) - FRAGMENT + 1)), line
