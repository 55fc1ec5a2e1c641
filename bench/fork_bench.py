"""How long a fork takes as the forked thread grows, and whether it sends the same bytes every time.

    python bench/fork_bench.py [--turns 50,200] [--repeat 20] [--postgres URL]

Prepares a thread through the real client stack (the stub model, no tools, policy summarize
2/5, ~600 bytes a turn), then forks it `--repeat` times with the engine API a bench uses
(`client.engine.forks.fork_thread`): at its last turn (the checkpoint copied) and at its middle
turn (the context rebuilt from the transcript when the fork is opened). Per case: the median
and the worst fork, the median open of the fork (rebuild included), and whether every fork's
first request carried the same messages (the stub's recorded bodies). SQLite always; PostgreSQL
with --postgres (a fresh schema, dropped after).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import client_stack, run_turn  # noqa: E402

from client.engine.forks import fork_thread  # noqa: E402
from tests.stubs.llm_stub import LLMStub  # noqa: E402


def line(i: int) -> str:
    return (f"{i}번째 이야기: 어제 본 영화와 주말 계획, 좋아하는 음식 이야기를 이어서 해요. " * 4)[:200]


async def case(llm: LLMStub, db: str, turns: int, repeat: int) -> list[list[str]]:
    rows = []
    async with client_stack(llm, db, "summarize", tools=False, max_turns=2, summary_after=5) as s:
        await s.open("prepared")
        for i in range(turns):
            await run_turn(s, line(i))
        for label, at in (("last", turns), ("middle", turns // 2)):
            forks, opens, sent = [], [], set()
            for _ in range(repeat):
                started = time.perf_counter()
                new = await fork_thread(s.store, "prepared", owner=s.threads.user, at=at, new_id=f"q-{uuid.uuid4().hex[:8]}")
                forks.append(time.perf_counter() - started)
                started = time.perf_counter()
                await s.open(new)
                opens.append(time.perf_counter() - started)
                before = len(llm.requests)
                await run_turn(s, "질문: 제가 좋아하는 음식은?")
                sent.add(json.dumps(llm.requests[before]["messages"], ensure_ascii=False, sort_keys=True))
                await s.open("prepared")
            rows.append([str(turns), label, f"{statistics.median(forks) * 1000:.1f}", f"{max(forks) * 1000:.1f}",
                         f"{statistics.median(opens) * 1000:.1f}", "yes" if len(sent) == 1 else f"no ({len(sent)})"])
    return rows


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", default="50,200")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--postgres", default="")
    args = ap.parse_args()
    counts = [int(x) for x in args.turns.split(",")]
    table = [["backend", "turns", "fork at", "fork ms (median)", "fork ms (worst)", "open ms (median)", "same request"]]
    with LLMStub() as llm, tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            table += [["sqlite", *r] for r in await case(llm, str(Path(tmp) / f"f{n}.db"), n, args.repeat)]
        if args.postgres:
            sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
            from tests.backends import fresh_pg_schema
            import tests.backends as backends

            backends.PG_URL = args.postgres
            for n in counts:
                with fresh_pg_schema("fork_bench") as url:
                    table += [["postgres", *r] for r in await case(llm, url, n, args.repeat)]
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


if __name__ == "__main__":
    asyncio.run(main())
