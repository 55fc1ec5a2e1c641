"""Database size and per-turn client work as a thread grows, per policy.

    python bench/storage_bench.py [--turns 10000] [--policies trim,summarize,none] [--baseline-turns 200]

Drives the real client stack (agent, checkpointer, policies, transcript) with
the local stub model (no tools, zero latency), ~1.8 KB of Korean text a turn
(every 10th turn also a tool-sized answer). At 10 / 100 / 1,000 / 10,000 turns
it records: database bytes (after a WAL checkpoint), transcript bytes (UTF-8 of
message contents), their ratio, the median client work of the last 20 turns
(turn wall time minus the time inside model calls, which includes the OpenAI
SDK building the request body), and resume time (open the database
and load the working context, as `mcp-chat --thread` does before the first
prompt). The baseline is the cookbook's pattern: `create_agent` +
`AsyncSqliteSaver`, the new message passed in, state merged by add_messages.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import client_stack, run_turn  # noqa: E402

from client.engine.store import open_store  # noqa: E402
from client.engine.store.codec import transcript_bytes  # noqa: E402
from tests.stubs.llm_stub import LLMStub  # noqa: E402

MARKS = (10, 100, 1_000, 10_000)
USER_CHARS, ANSWER_CHARS = 200, 400  # ~600 Hangul syllables = ~1.8 KB UTF-8 a turn


def user_line(i: int) -> str:
    head = f"{i}번째 질문: 지난번 이야기에 이어서 "
    return (head + "일정과 예산, 조건을 다시 정리해 주세요. " * 20)[:USER_CHARS]


def db_bytes(path: str) -> int:
    if path.startswith(("postgresql://", "postgres://")):  # every table of the bench's schema: heap, indexes, TOAST
        import psycopg

        with psycopg.connect(path) as con:
            return int(con.execute(
                "SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'"
            ).fetchone()[0])
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))


async def resume_time(llm: LLMStub, db: str, policy: str, thread: str) -> float:
    t0 = time.perf_counter()
    async with client_stack(llm, db, policy, tools=False) as session:
        await session.open(thread)
        await session.threads.load()
    return time.perf_counter() - t0


async def run_policy(policy: str, turns: int, tmp: Path, db: str | None = None) -> list[dict]:
    rows = []
    db = db or str(tmp / f"{policy}.db")
    thread = f"bench-{policy}"
    with LLMStub(answer_chars=ANSWER_CHARS) as llm:
        async with client_stack(llm, db, policy, tools=False) as session:
            await session.open(thread)
            times: list[float] = []
            for i in range(1, turns + 1):
                llm.requests.clear()  # the stub's log would grow without bound
                t0 = time.perf_counter()
                done = await run_turn(session, user_line(i))
                assert done is not None
                times.append(time.perf_counter() - t0 - done.stats.model_seconds)
                if i in MARKS:
                    tx = sum(transcript_bytes(m) for _, m in await session.store.transcript(thread))
                    size = db_bytes(db)
                    rows.append({"policy": policy, "turns": i, "db": size, "tx": tx,
                                 "turn_ms": statistics.median(times[-20:]) * 1000})
        for row in rows:  # resume measured on the final database for the last mark only
            row["resume_ms"] = None
        rows[-1]["resume_ms"] = await resume_time(llm, db, policy, thread) * 1000
    return rows


async def run_baseline(turns: int, tmp: Path) -> list[dict]:
    """The cookbook's client: full state in every checkpoint, nothing pruned."""
    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_naver import ChatClovaX
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    rows = []
    db = str(tmp / "baseline.db")
    with LLMStub(answer_chars=ANSWER_CHARS) as llm:
        model = ChatClovaX(model="HCX-005", api_key="bench", base_url=llm.base_url, max_tokens=1024)
        async with AsyncSqliteSaver.from_conn_string(db) as saver:
            agent = create_agent(model, [], checkpointer=saver)
            cfg = {"configurable": {"thread_id": "baseline"}}
            times: list[float] = []
            tx = 0
            for i in range(1, turns + 1):
                llm.requests.clear()
                msgs = [HumanMessage(user_line(i))]
                if i == 1:
                    msgs.insert(0, SystemMessage("당신은 친절한 AI 어시스턴트입니다."))
                t0 = time.perf_counter()
                out = await agent.ainvoke({"messages": msgs}, cfg)
                times.append(time.perf_counter() - t0)
                tx += sum(transcript_bytes(m) for m in out["messages"][-2:])
                if i in MARKS or i == turns:
                    rows.append({"policy": "baseline", "turns": i, "db": db_bytes(db), "tx": tx,
                                 "turn_ms": statistics.median(times[-20:]) * 1000, "resume_ms": None})
    return rows


def fmt_bytes(n: int) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1e5 else f"{n / 1e3:.1f} kB"


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=10_000)
    ap.add_argument("--policies", default="trim,summarize,none")
    ap.add_argument("--none-turns", type=int, default=1_000,
                    help="turns for `none` (each of its turns sends the whole 128k-token budget; "
                         "10,000 takes over 25 minutes here, all of it in the OpenAI SDK)")
    ap.add_argument("--baseline-turns", type=int, default=200)
    ap.add_argument("--postgres", metavar="URL", help="also run the policies on PostgreSQL (a fresh schema each)")
    ap.add_argument("--postgres-turns", type=int, default=1_000)
    args = ap.parse_args()
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as d:
        for policy in args.policies.split(","):
            t0 = time.perf_counter()
            turns = min(args.turns, args.none_turns) if policy == "none" else args.turns
            rows += await run_policy(policy, turns, Path(d))
            print(f"# {policy}: {turns} turns in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        if args.baseline_turns:
            rows += await run_baseline(args.baseline_turns, Path(d))
        short = {}
        for policy in args.policies.split(","):
            short[policy] = await resume_short(Path(d), policy)
    print("| policy | turns | database | transcript | db/transcript | client ms/turn (median, last 20) | resume ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        resume = f"{r['resume_ms']:.0f} (10 turns: {short[r['policy']]:.0f})" if r.get("resume_ms") else ""
        print(f"| {r['policy']} | {r['turns']:,} | {fmt_bytes(r['db'])} | {fmt_bytes(r['tx'])} | "
              f"{r['db'] / r['tx']:.2f}x | {r['turn_ms']:.1f} | {resume} |")
    if args.postgres:
        await compare_postgres(args.postgres, args.policies.split(","), args.postgres_turns, rows)


async def compare_postgres(url: str, policies: list[str], turns: int, sqlite_rows: list[dict]) -> None:
    """The same policies on PostgreSQL, next to SQLite's row at the same turn count."""
    import uuid

    import psycopg

    from client.engine.store import mask_url
    from tests.backends import with_schema

    pg: dict[str, dict] = {}
    for policy in policies:
        schema = f"bench_{policy}_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(url, autocommit=True) as con:
            con.execute(f'CREATE SCHEMA "{schema}"')
        try:
            t0 = time.perf_counter()
            pg[policy] = (await run_policy(policy, turns, Path("."), db=with_schema(url, schema)))[-1]
            print(f"# postgres {policy}: {turns} turns in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        finally:
            with psycopg.connect(url, autocommit=True) as con:
                con.execute(f'DROP SCHEMA "{schema}" CASCADE')
    print(f"\nSQLite vs PostgreSQL ({mask_url(url)}), {turns:,} turns:\n")
    print("| policy | SQLite db | Postgres db | SQLite ms/turn | Postgres ms/turn | SQLite resume ms | Postgres resume ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for policy, p in pg.items():
        s = next((r for r in sqlite_rows if r["policy"] == policy and r["turns"] == p["turns"]), None)
        sq = (fmt_bytes(s["db"]), f"{s['turn_ms']:.1f}", f"{s['resume_ms']:.0f}" if s.get("resume_ms") else "") if s else ("",) * 3
        print(f"| {policy} | {sq[0]} | {fmt_bytes(p['db'])} | {sq[1]} | {p['turn_ms']:.1f} | {sq[2]} | {p['resume_ms']:.0f} |")


async def resume_short(tmp: Path, policy: str) -> float:
    """Resume time of a 10-turn thread, for the ratio."""
    db = str(tmp / f"short-{policy}.db")
    with LLMStub(answer_chars=ANSWER_CHARS) as llm:
        async with client_stack(llm, db, policy, tools=False) as session:
            await session.open("short")
            for i in range(1, 11):
                await run_turn(session, user_line(i))
        return await resume_time(llm, db, policy, "short") * 1000


if __name__ == "__main__":
    asyncio.run(main())
