"""Throughput/latency of the search server: N concurrent `web_search` calls on ONE MCP session.

    python bench/server_bench.py [--transports http,stdio] [--samples 300] [--levels 1,10,50]

Starts the Naver stub (zero latency) and the server as subprocesses on 127.0.0.1, then for each
transport and concurrency level N runs rounds of N concurrent calls until about --samples calls
were timed, and prints: N, calls/s, p50 ms, p99 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[1]
CLIENT_ID, CLIENT_SECRET = "bench-id", "bench-secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen[Any], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args} exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on {port}")


def spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[Any]:
    return subprocess.Popen(
        [sys.executable, *args], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextlib.asynccontextmanager
async def open_session(transport: str, env: dict[str, str]) -> AsyncIterator[ClientSession]:
    if transport == "stdio":
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "server", "--transport", "stdio"], env=env, cwd=str(ROOT)
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session
        return
    port = free_port()
    extra = ["--stateless"] if transport == "http-stateless" else []
    proc = spawn(["-m", "server", "--port", str(port), "--log-level", "warning", *extra], env)
    try:
        wait_port(port, proc)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session
    finally:
        stop(proc)


async def timed_call(session: ClientSession, i: int) -> float:
    t0 = time.perf_counter()
    result = await session.call_tool("web_search", {"query": f"벤치마크 {i}", "display": 10})
    elapsed = time.perf_counter() - t0
    if result.is_error:
        raise RuntimeError(result.content[0].text)
    return elapsed


async def run_level(session: ClientSession, n: int, samples: int) -> tuple[float, float, float]:
    await asyncio.gather(*(timed_call(session, i) for i in range(n)))  # warm-up round
    latencies: list[float] = []
    rounds = math.ceil(samples / n)
    t0 = time.perf_counter()
    for r in range(rounds):
        latencies += await asyncio.gather(*(timed_call(session, r * n + i) for i in range(n)))
    wall = time.perf_counter() - t0
    q = statistics.quantiles(latencies, n=100, method="inclusive")
    return len(latencies) / wall, q[49] * 1000, q[98] * 1000


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transports", default="http,stdio", help="comma list of http, http-stateless, stdio")
    parser.add_argument("--levels", default="1,10,50")
    parser.add_argument("--samples", type=int, default=300)
    args = parser.parse_args()

    stub_port = free_port()
    base_env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)}
    stub = spawn(["-m", "tests.stubs.naver_stub", "--port", str(stub_port),
                  "--client-id", CLIENT_ID, "--client-secret", CLIENT_SECRET], base_env)
    env = {**base_env, "NAVER_API_BASE_URL": f"http://127.0.0.1:{stub_port}",
           "NAVER_CLIENT_ID": CLIENT_ID, "NAVER_CLIENT_SECRET": CLIENT_SECRET}
    try:
        wait_port(stub_port, stub)
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.samples} samples per level\n")
        print("| transport | N | calls/s | p50 ms | p99 ms |")
        print("|---|---:|---:|---:|---:|")
        for transport in args.transports.split(","):
            async with open_session(transport, env) as session:
                for n in (int(x) for x in args.levels.split(",")):
                    rate, p50, p99 = await run_level(session, n, args.samples)
                    print(f"| {transport} | {n} | {rate:.0f} | {p50:.1f} | {p99:.1f} |", flush=True)
    finally:
        stop(stub)


if __name__ == "__main__":
    asyncio.run(main())
