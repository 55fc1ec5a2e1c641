"""The command the conformance suite runs: `python -m tests.conformance.driver <server-url>`.

It runs the real mcp-chat (a subprocess, piped, `--yes`) against the suite's test server, with
the recording model stub as the model. The suite names its scenario in MCP_CONFORMANCE_SCENARIO;
the stub's `[tool:NAME {args}]` directive makes the model call the scenario's tool, so everything
the server sees comes from mcp-chat's own MCP layer (clientInfo, callbacks, transport).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.stubs.llm_stub import LLMStub  # noqa: E402

TEST_KEY = "sk-conformance-key-123456"
DAEMON_ENV = ("MCP_CHAT_DAEMON", "MCP_CHAT_RUNTIME_DIR", "MCP_CHAT_DAEMON_IDLE")
CIMD_URL = "https://conformance-test.local/client-metadata.json"  # the client id auth/basic-cimd expects


def call(name: str, args: dict | None = None) -> str:
    """A user line on which the stub model calls tool `name` ("?": the first tool offered)."""
    return f"[tool:{name} {json.dumps(args or {}, ensure_ascii=False)}]"


# scenario -> the user's lines (default: list the servers, i.e. connect and list tools)
LINES: dict[str, list[str]] = {
    "tools_call": [call("add_numbers", {"a": 5, "b": 3})],
    "elicitation-sep1034-client-defaults": [call("test_client_elicitation_defaults")],
    "sse-retry": [call("test_reconnection")],
    "auth/scope-step-up": [call("?")],  # the second authorization happens on a tool call's 403
    "sep-2322-client-request-state": [call("test_mrtr_echo_state"), call("test_mrtr_unrelated"),
                                      call("test_mrtr_no_state"), call("test_mrtr_no_result_type")],
    "http-invalid-tool-headers": [call("valid_tool", {"region": "us-west1"})],  # its schema: region required
    "json-schema-2020-12-preservation": ["[echo-schema:json_schema_2020_12_tool->json_schema_echo]"],
}


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    lines = [call(c["name"], c.get("arguments")) for c in context.get("toolCalls") or []]
    lines = lines or LINES.get(scenario) or ["/servers"]
    with tempfile.TemporaryDirectory() as tmp, LLMStub() as llm:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": tmp, "PYTHONPATH": str(ROOT),
               "CLOVA_STUDIO_API_KEY": TEST_KEY, "CLOVA_STUDIO_BASE_URL": llm.base_url, "PYTHONUNBUFFERED": "1",
               "MCP_CHAT_OAUTH_HEADLESS": "1"}  # the documented no-browser login mode
        # the test session's pre-imported client, when the suite runs under pytest (tests/conftest.py)
        env.update({k: v for k, v in os.environ.items() if k in DAEMON_ENV})
        oauth: dict = {"clientId": context["client_id"], "clientSecret": context.get("client_secret"),
                       "issuer": context.get("issuer")} if context.get("client_id") else {}
        if scenario.startswith("auth/client-credentials"):  # the machine-to-machine extension
            oauth.update(grant="client_credentials", privateKey=context.get("private_key_pem"),
                         signingAlgorithm=context.get("signing_algorithm"))
        if scenario == "auth/basic-cimd":
            oauth["clientMetadataUrl"] = CIMD_URL
        oauth = {k: v for k, v in oauth.items() if v is not None}
        config = Path(tmp) / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"conformance": {"url": url, "oauth": oauth}}}), encoding="utf-8")
        p = subprocess.run([sys.executable, "-m", "client", "--new", "--mcp-config", str(config), "--yes", "--no-memory",
                            "--context", "none", "--db", str(Path(tmp) / "chat.db"), "--lang", "en"],
                           input=("\n".join(lines) + "\n").encode(), env=env, cwd=tmp, capture_output=True,
                           timeout=150)
        sys.stdout.write(p.stdout.decode(errors="replace"))
        sys.stderr.write(p.stderr.decode(errors="replace"))
        return p.returncode


if __name__ == "__main__":
    sys.exit(main())
