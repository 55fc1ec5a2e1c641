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
# scenario -> the tool the model calls (None: connecting and listing tools is the whole test)
TOOL_CALLS: dict[str, tuple[str, dict] | None] = {
    "initialize": None,
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
    "sse-retry": ("test_reconnection", {}),
}


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    call = TOOL_CALLS.get(scenario)
    lines = ["/servers"] if call is None else [f"[tool:{call[0]} {json.dumps(call[1])}]"]
    with tempfile.TemporaryDirectory() as tmp, LLMStub() as llm:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": tmp, "PYTHONPATH": str(ROOT),
               "CLOVA_STUDIO_API_KEY": TEST_KEY, "CLOVA_STUDIO_BASE_URL": llm.base_url, "PYTHONUNBUFFERED": "1",
               "MCP_CHAT_OAUTH_HEADLESS": "1"}  # the documented no-browser login mode
        context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
        oauth = {"clientId": context["client_id"], "clientSecret": context.get("client_secret")} \
            if context.get("client_id") else {}
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
