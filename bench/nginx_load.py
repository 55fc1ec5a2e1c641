"""Load through the shipped nginx config: N concurrent clients x M `web_search` calls against two
`--stateless` replicas (each with its own zero-latency Naver stub), one replica SIGKILLed halfway.

    python bench/nginx_load.py [--clients 8] [--searches 25] [--naver-delay 0.05] [--no-kill]

Needs Debian's nginx (`bash scripts/nginx_start.sh --install`) and free ports 8080, 8001, 8002
(loopback only). Each client holds one MCP session (bearer token) and calls one search at a time;
a failed call is counted and the client opens a new session through nginx and goes on. When half
of all calls are done, one replica is killed. Only calls in flight on that replica may fail.
Prints a Markdown table: calls answered, calls failed, calls in flight at the kill, p50/p99 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from tests.deploy.stack import REPLICA_PORTS, TOKEN, Stack  # noqa: E402

CALL_TIMEOUT = 30.0
# An answer cut off by a dying replica is an expected failure here, counted in the table.
logging.getLogger("mcp.client.streamable_http").setLevel(logging.CRITICAL)


class Run:
    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.latencies: list[float] = []
        self.failed = 0
        self.reopen_failed = 0
        self.in_flight = 0
        self.in_flight_at_kill: int | None = None
        self.killed_at: float | None = None  # wall clock, as nginx's $msec
        self.halfway = asyncio.Event()


async def client(stack: Stack, run: Run, cid: int, searches: int) -> None:
    i = 0
    reopen_left = 5  # bounded: a balancer that stays down ends the client
    while i < searches and reopen_left > 0:
        calling = False
        try:
            async with contextlib.AsyncExitStack() as es:
                http = await es.enter_async_context(httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(30, read=300)))
                read, write = await es.enter_async_context(streamable_http_client(stack.url, http_client=http))
                session = await es.enter_async_context(ClientSession(read, write))
                await asyncio.wait_for(session.initialize(), CALL_TIMEOUT)
                while i < searches:
                    start = time.perf_counter()
                    run.in_flight += 1
                    calling = True
                    try:
                        result = await asyncio.wait_for(
                            session.call_tool("web_search", {"query": f"client {cid} search {i}"}), CALL_TIMEOUT)
                    finally:
                        run.in_flight -= 1
                        i += 1
                        run.done += 1
                        if run.done * 2 >= run.total:
                            run.halfway.set()
                    calling = False
                    if result.is_error:
                        run.failed += 1
                    else:
                        run.latencies.append((time.perf_counter() - start) * 1000)
        except BaseException as exc:  # a call that failed in flight breaks its session: count it, reconnect
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            if calling:
                run.failed += 1
            else:
                run.reopen_failed += 1  # the session's initialize, not a search
                reopen_left -= 1
    run.failed += searches - i  # calls never made count as failed


async def killer(stack: Stack, run: Run, victim: int) -> None:
    await run.halfway.wait()
    run.in_flight_at_kill = run.in_flight
    await asyncio.to_thread(stack.kill, victim)
    run.killed_at = time.time()  # the process is gone and its port closed


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def failures_in_nginx_log(stack: Stack, killed_at: float | None, victim: int) -> tuple[int, int]:
    """(502s answered by nginx, those sent to the killed replica before it was gone)."""
    bad = early = 0
    for line in (stack.dir / "nginx" / "access.log").read_text().splitlines():
        msec, request_time, status, rest = line.split(" ", 3)
        if status != "502":
            continue
        bad += 1
        started = float(msec) - float(request_time)
        if killed_at is not None and started <= killed_at + 0.001 and f":{victim}" in rest:
            early += 1
    return bad, early


async def measure(stack: Stack, clients: int, searches: int, kill: bool) -> dict:
    run = Run(clients * searches)
    started = time.perf_counter()
    tasks = [client(stack, run, c, searches) for c in range(clients)]
    if kill:
        tasks.append(killer(stack, run, REPLICA_PORTS[0]))
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - started
    bad, early = failures_in_nginx_log(stack, run.killed_at, REPLICA_PORTS[0])
    return {
        "answered": len(run.latencies), "failed": run.failed, "reopen_failed": run.reopen_failed,
        "in_flight": run.in_flight_at_kill, "nginx_502": bad, "started_before_kill": early,
        "p50": pct(run.latencies, 0.5), "p99": pct(run.latencies, 0.99),
        "rate": len(run.latencies) / elapsed,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--searches", type=int, default=25, help="searches per client")
    ap.add_argument("--naver-delay", type=float, default=0.05, help="seconds the Naver stub takes per answer")
    ap.add_argument("--no-kill", action="store_true", help="only the run without a killed replica")
    args = ap.parse_args()
    if not (1 <= args.clients <= 200 and 1 <= args.searches <= 1000):
        ap.error("--clients 1-200, --searches 1-1000")
    rows = []
    for kill in (False,) if args.no_kill else (False, True):
        with tempfile.TemporaryDirectory(prefix="nginx-load-") as tmp, Stack(Path(tmp)) as stack:
            for stub in stack.stubs.values():
                if args.naver_delay > 0:
                    stub.set_mode("slow", delay=args.naver_delay)
            r = asyncio.run(measure(stack, args.clients, args.searches, kill))
            r["served"] = {p: len(s.requests) for p, s in stack.stubs.items()}
            rows.append((kill, r))
    print(f"\n{args.clients} clients x {args.searches} searches through nginx (deploy/nginx.conf), "
          f"2 replicas, Naver stub {args.naver_delay * 1000:.0f} ms\n")
    print("| replica 8001 | calls | answered | failed | in flight at kill | session re-opens failed | 502 from nginx (of them sent to 8001 before it was gone) | calls/s | p50 ms | p99 ms | served 8001 / 8002 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for kill, r in rows:
        print(f"| {'killed halfway' if kill else 'alive'} | {args.clients * args.searches} | {r['answered']} | "
              f"{r['failed']} | {r['in_flight'] if r['in_flight'] is not None else '-'} | {r['reopen_failed']} | {r['nginx_502']} ({r['started_before_kill']}) | {r['rate']:.0f} | "
              f"{r['p50']:.1f} | {r['p99']:.1f} | {r['served'][8001]} / {r['served'][8002]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
