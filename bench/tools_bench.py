"""Deferred tool schemas with many servers: what a request carries at turns 1 and 20 (issue 41).

    python bench/tools_bench.py [--servers 25] [--tools 8] [--turns 20]

25 generated stdio MCP servers (tests/stubs/many_tools_server.py) with 8 tools each, the real
client stack in-process (agent, checkpointer, default context policy, permission gate with
--yes, HCX-005's budget) and the recording model stub as a stand-in model. The same 20-turn
script runs twice: with deferred schemas (MCP_CHAT_TOOL_SEARCH=auto) and with every schema
(off). In the deferred run the stand-in finds tools with tool_search and calls them, and once
calls a deferred tool without searching; in the other it calls them directly. Printed: the first
model request of turns 1 and 20 (tools sent, JSON characters, estimated tokens of the tools and
of the whole body), then whether each deferred call was found and ran (the server's log).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import ROOT, run_turn  # noqa: E402

from client.core.config import Settings  # noqa: E402
from client.core.context.budget import estimate_text_tokens, estimate_tools_tokens  # noqa: E402
from client.engine.build import build_session  # noqa: E402
from client.engine.mcp.hub import ToolHub  # noqa: E402
from client.engine.mcp.gate import PermissionGate  # noqa: E402
from client.engine.mcp.permissions import Permissions  # noqa: E402
from client.engine.mcp.specs import ServerSpec  # noqa: E402
from client.engine.store import open_store  # noqa: E402
from tests.stubs.llm_stub import LLMStub  # noqa: E402
from tests.stubs.many_tools_server import DOMAINS  # noqa: E402

SERVER = ROOT / "tests" / "stubs" / "many_tools_server.py"
BUDGET = 123_904  # HCX-005: 128,000 - 4,096
# turn -> (query for tool_search or None: call without searching, the tool, its arguments)
CALLS = {
    1: ("github create issue", "github_create_issue", {"workspace": "acme", "title": "Build fails"}),
    4: ("send slack message", "slack_create_message", {"workspace": "acme", "title": "deploy done"}),
    9: (None, "jira_create_ticket", {"workspace": "acme", "title": "Follow up"}),
    14: ("select:calendar_list_event", "calendar_list_event", {"workspace": "me", "query": "standup"}),
}


def specs(n: int, tools: int, log: Path) -> list[ServerSpec]:
    return [ServerSpec(d, "stdio", command=sys.executable, args=[str(SERVER), d, "--count", str(tools), "--log", str(log)])
            for d in list(DOMAINS)[:n]]


def row(body: dict) -> tuple[int, int, int, int]:
    tools = body.get("tools", [])
    text = json.dumps(body, ensure_ascii=False)
    return len(tools), len(text), estimate_tools_tokens(tools), estimate_text_tokens(text)


async def run(mode: str, hub: ToolHub, llm: LLMStub, folder: Path, turns: int) -> dict:
    llm.clear()
    settings = Settings(db=str(folder / f"{mode}.db"), api_key="bench", base_url=llm.base_url, model="stub",
                        max_input_tokens=BUDGET, memory=False, tool_search=mode)
    store = await open_store(settings.db)
    session = build_session(settings, store, hub.tools, gate=PermissionGate(hub.authorize, hub.tool_of))
    await session.open(None)
    firsts: dict[int, dict] = {}
    try:
        for turn in range(1, turns + 1):
            query, tool, args = CALLS.get(turn, (None, None, None))
            if tool:
                if query and mode != "off":
                    llm.push({"tool_calls": [("tool_search", {"query": query})]})
                llm.push({"tool_calls": [(tool, args)]})
            before = len(llm.requests)
            await run_turn(session, f"{turn}번째 질문입니다. 도구가 필요하면 쓰세요.")
            firsts[turn] = next(r for r in llm.requests[before:] if r.get("tools"))
    finally:
        await store.close()
    return firsts


def found_and_ran(log: Path, llm_requests: list[dict]) -> list[tuple[str, str, bool, bool]]:
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    out = []
    for query, tool, _ in CALLS.values():
        searched = query is not None and any(
            m.get("role") == "tool" and f"- {tool} [" in (m.get("content") or "")
            for r in llm_requests for m in r["messages"])
        out.append((tool, query or "(no search)", searched, any(ln.startswith(f"{tool} ran:") for ln in lines)))
    return out


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--servers", type=int, default=25)
    ap.add_argument("--tools", type=int, default=8)
    ap.add_argument("--turns", type=int, default=20)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, LLMStub() as llm:
        folder = Path(tmp)
        log = folder / "ran.log"
        t0 = time.perf_counter()
        hub = ToolHub(specs(a.servers, a.tools, log), permissions=Permissions(yes=True))
        await hub.fleet.connect()
        assert hub.fleet.error is None, hub.fleet.error
        started = time.perf_counter() - t0
        try:
            results = {}
            for mode in ("auto", "off"):
                results[mode] = await run(mode, hub, llm, folder, a.turns)
                if mode == "auto":
                    checks = found_and_ran(log, list(llm.requests))
                    log.unlink(missing_ok=True)
        finally:
            await hub.fleet.aclose()
    print(f"{len(hub.tools)} tools over {a.servers} servers (started in {started:.1f} s); budget {BUDGET:,} tokens; "
          f"{a.turns} turns, {len(CALLS)} of them with a tool call\n")
    print("| schemas | turn | tools sent | request chars | tools tokens (est.) | request tokens (est.) | share of budget |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode, label in (("auto", "deferred (tool_search)"), ("off", "all schemas")):
        for turn in (1, a.turns):
            n, chars, tools_tok, total = row(results[mode][turn])
            print(f"| {label} | {turn} | {n} | {chars:,} | {tools_tok:,} | {total:,} | {100 * total / BUDGET:.1f}% |")
    print("\n| deferred tool | query | found by tool_search | ran (server log) |")
    print("|---|---|---|---|")
    for tool, query, searched, ran in checks:
        print(f"| {tool} | {query} | {'yes' if searched else '-'} | {'yes' if ran else 'NO'} |")


if __name__ == "__main__":
    asyncio.run(main())
