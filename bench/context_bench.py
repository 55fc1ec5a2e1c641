"""Request tokens per turn under none / trim / summarize (100 scripted turns).

    python bench/context_bench.py [--turns 100] [--png bench/context_tokens.png]

Drives the real client stack (agent, checkpointer, MCP search server over
stdio) against the local stubs; tokens are the Korean-tuned estimate of each
request body the stub endpoint received (messages + tool schemas), summed per
turn, summary requests included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conversation import script  # noqa: E402
from harness import client_stack, run_turn  # noqa: E402

from client.core.context.budget import estimate_text_tokens  # noqa: E402
from tests.stubs.llm_stub import LLMStub  # noqa: E402
from tests.stubs.naver_stub import NaverStub  # noqa: E402
import os  # noqa: E402

POLICIES = [("none", {}), ("trim", {"max_turns": 5}), ("summarize", {"summary_after": 5, "max_turns": 2})]


def request_tokens(body: dict) -> int:
    text = "".join(str(m.get("content") or "") + json.dumps(m.get("tool_calls") or "", ensure_ascii=False)
                   for m in body.get("messages", []))
    return estimate_text_tokens(text) + 4 * len(body.get("messages", [])) + (
        estimate_text_tokens(json.dumps(body.get("tools", []), ensure_ascii=False)) if body.get("tools") else 0)


async def run_policy(name: str, ctx: dict, turns: int, tmp: Path) -> list[int]:
    per_turn: list[int] = []
    with LLMStub(answer_chars=400) as llm, NaverStub() as naver:
        os.environ.update({"NAVER_CLIENT_ID": naver.client_id, "NAVER_CLIENT_SECRET": naver.client_secret,
                           "NAVER_API_BASE_URL": naver.base_url})
        async with client_stack(llm, str(tmp / f"{name}.db"), name, **ctx) as session:
            await session.open(f"bench-{name}")
            for text in script(turns):
                before = len(llm.requests)
                await run_turn(session, text)
                per_turn.append(sum(request_tokens(b) for b in llm.requests[before:]))
    return per_turn


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=100)
    ap.add_argument("--png", default=str(Path(__file__).parent / "context_tokens.png"))
    args = ap.parse_args()
    results: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory() as d:
        for name, ctx in POLICIES:
            results[name] = await run_policy(name, ctx, args.turns, Path(d))
    base = sum(results["none"])
    print(f"{args.turns} turns, every 7th with a web_search call; tokens = estimate of what the endpoint received\n")
    marks = [t for t in (1, 10, 25, 50, 75, 100) if t <= args.turns]
    print("| policy | " + " | ".join(f"turn {t}" for t in marks) + " | max/turn | total | vs none |")
    print("|---|" + "---:|" * (len(marks) + 3))
    for name, series in results.items():
        cells = " | ".join(f"{series[t - 1]:,}" for t in marks)
        print(f"| {name} | {cells} | {max(series):,} | {sum(series):,} | {sum(series) / base:.2f}x |")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, 4))
        for name, series in results.items():
            ax.plot(range(1, len(series) + 1), series, label=name)
        ax.set_xlabel("turn")
        ax.set_ylabel("request tokens (estimate)")
        ax.set_title(f"Request tokens per turn ({args.turns} scripted turns)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.png, dpi=100)
        print(f"\nplot: {args.png}")
    except ImportError:
        print("\n(matplotlib not installed: pip install -e '.[bench]' for the plot)")


if __name__ == "__main__":
    asyncio.run(main())
