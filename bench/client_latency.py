"""Start-up time and the latency the client adds to a turn (stub model, zero delay).

    python bench/client_latency.py [--turns 50]

Start-up: wall time from launching `mcp-chat --new` (bundled search server
spawned over stdio) to its greeting line. Turn latency: wall time of a whole
turn in-process against the stub endpoint, whose own work is ~1 ms a request,
so nearly all of it is client overhead (agent, checkpoints, transcript,
MCP round trip for tool turns).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import ROOT, client_stack, run_turn  # noqa: E402

from tests.stubs.llm_stub import LLMStub  # noqa: E402
from tests.stubs.naver_stub import NaverStub  # noqa: E402


def startup(llm: LLMStub, naver: NaverStub, tmp: str, runs: int = 5) -> list[float]:
    env = {**os.environ, "CLOVA_STUDIO_API_KEY": "bench", "CLOVA_STUDIO_BASE_URL": llm.base_url,
           "NAVER_API_BASE_URL": naver.base_url, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    out = []
    for i in range(runs):
        t0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-m", "client", "--new", "--db", f"{tmp}/s{i}.db"], cwd=tmp,
                             env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert p.stdout is not None
        for line in p.stdout:
            if "안녕하세요" in line.decode():
                out.append(time.perf_counter() - t0)
                break
        p.communicate(b"")
    return out


async def turns(llm: LLMStub, tmp: str, n: int, text: str) -> list[float]:
    async with client_stack(llm, f"{tmp}/lat.db", "trim", max_turns=5) as session:
        await session.open(None)
        times = []
        for i in range(n):
            t0 = time.perf_counter()
            await run_turn(session, f"{text} {i}")
            times.append(time.perf_counter() - t0)
    return times


def row(name: str, xs: list[float]) -> str:
    xs = sorted(xs)
    p90 = xs[int(0.9 * (len(xs) - 1))]
    return f"| {name} | {len(xs)} | {statistics.median(xs) * 1000:.0f} | {p90 * 1000:.0f} |"


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=50)
    args = ap.parse_args()
    with LLMStub() as llm, NaverStub() as naver, tempfile.TemporaryDirectory() as tmp:
        os.environ.update({"NAVER_CLIENT_ID": naver.client_id, "NAVER_CLIENT_SECRET": naver.client_secret,
                           "NAVER_API_BASE_URL": naver.base_url})
        s = startup(llm, naver, tmp)
        plain = await turns(llm, tmp, args.turns, "안녕하세요")
        tool = await turns(llm, tmp, args.turns, "서울 날씨 검색해 줘")
    print("| measurement | n | median ms | p90 ms |")
    print("|---|---:|---:|---:|")
    print(row("start-up to greeting (`mcp-chat --new`, search server over stdio)", s))
    print(row("turn, plain answer (1 model call)", plain))
    print(row("turn with a web_search over stdio (2 model calls + 1 tool call)", tool))


if __name__ == "__main__":
    asyncio.run(main())
