"""Every turn ends and memory works on the real model (issue 14): llama-server +
Qwen2.5-Coder-1.5B at temperature 0, the bundled MCP search server, the Naver stub.
Assertions are on structure (requests, transcript), never on answer quality. That a fact of one
thread reaches the next thread's system message is test_first_session.py's (a real terminal)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.localmodel, pytest.mark.timeout(900)]
STATEMENT = "I am vegetarian, I never eat meat."


def test_statement_ends_within_the_caps_and_stays_in_the_thread(lchat, proxy, naver):
    naver.set_mode("status", status=401)  # every search fails, as without working keys
    r = lchat("--thread", "veg", "--no-memory", "--context", "none", input=STATEMENT + "\n")
    assert r.code == 0, r.err
    reqs = proxy.requests
    assert 1 <= len(reqs) <= 12  # the default per-turn cap
    for i, q in enumerate(reqs):
        calls = [c for m in q["messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        keys = [(c["function"]["name"], json.dumps(json.loads(c["function"]["arguments"]), sort_keys=True))
                for c in calls]
        assert max((keys.count(k) for k in keys), default=0) <= 2  # no identical failing call a third time
        if i < len(reqs) - 1:
            assert q.get("tools")  # only the last request may go without tools
    doc = subprocess.run([sys.executable, "-m", "client", "export", "veg", "--format", "json", "--db", lchat.db],
                         capture_output=True, cwd=lchat.tmp, env=lchat.env, timeout=60).stdout
    users = [m["content"] for m in json.loads(doc)["messages"] if m["role"] == "user"]
    assert STATEMENT in users

