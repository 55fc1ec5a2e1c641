"""The search server under slow clients: N connections that send a request head, then trickle its body.

    python bench/slow_clients.py [--connections 1100] [--nofile 1024] [--hold 45] [--compare REF]

Starts the Naver stub and `mcp-search-server` (streamable HTTP) on 127.0.0.1, the server with a
descriptor limit of --nofile (soft and hard, the usual 1,024). Then opens --connections connections
that each send a complete `POST /mcp` head announcing a 100 kB body and one body byte a second,
reconnecting when the server closes one, for --hold seconds. Meanwhile a normal client sends a
whole `initialize` request every 2 s (10 s to answer). Prints, per server version: how many slow
connections the server had at most, the normal requests answered and their latency, and what the
server's log grew by. `--compare REF` runs the server of git REF (its server/ and plumbing/) first,
in the same run, so both rows share the machine's load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from server_bench import ROOT, free_port, stop, wait_port  # bench/ is on sys.path when run as a script

CLIENT_ID, CLIENT_SECRET = "bench-id", "bench-secret"
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "bench", "version": "0"}}}).encode()
ACCEPT = b"Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
NORMAL_EVERY, NORMAL_WAIT = 2.0, 10.0  # seconds


def open_files(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


@dataclass
class Row:
    version: str
    most_fds: int = 0
    reconnects: int = 0
    answered: list[float] = field(default_factory=list)
    unanswered: int = 0
    log_bytes: int = 0
    tracebacks: int = 0
    log_lines: int = 0


def head(port: int, length: int, close: bool = False) -> bytes:
    """A `POST /mcp` request head announcing a body of `length` bytes."""
    last = b"Connection: close\r\n" if close else b""
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {length}\r\n".encode()
            + ACCEPT + last + b"\r\n")


async def slow_client(port: int, stop_at: float, row: Row) -> None:
    """Holds one connection with a trickling body; a closed one is opened again."""
    while time.monotonic() < stop_at:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.5)
            continue
        try:
            writer.write(head(port, 100_000))
            while time.monotonic() < stop_at and not reader.at_eof():
                writer.write(b" ")
                await writer.drain()
                try:  # a byte a second, or the server's answer / close
                    if await asyncio.wait_for(reader.read(65536), 1.0) == b"":
                        break
                except asyncio.TimeoutError:
                    pass
            else:
                continue
            row.reconnects += 1
        except OSError:
            row.reconnects += 1
        finally:
            writer.close()


async def normal_client(port: int, stop_at: float, row: Row) -> None:
    request = head(port, len(INIT), close=True) + INIT
    while time.monotonic() < stop_at:
        started = time.monotonic()
        try:
            async def ask() -> bytes:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                try:
                    writer.write(request)
                    return await reader.read(4096)
                finally:
                    writer.close()

            answer = await asyncio.wait_for(ask(), NORMAL_WAIT)
            if answer.startswith(b"HTTP/1.1 200"):
                row.answered.append(time.monotonic() - started)
            else:
                row.unanswered += 1
        except (OSError, asyncio.TimeoutError):
            row.unanswered += 1
        await asyncio.sleep(max(0.0, started + NORMAL_EVERY - time.monotonic()))


def limit_files(n: int):  # -> a preexec_fn
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))
    return apply


async def run(version: str, code: Path, args: argparse.Namespace, env: dict[str, str]) -> Row:
    row = Row(version)
    port = free_port()
    log_path = Path(tempfile.mkstemp(prefix="slow-clients-", suffix=".log")[1])
    with log_path.open("wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "server", "--port", str(port), "--no-env-file"],
                                cwd=code, env={**env, "PYTHONPATH": str(code)}, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=log, preexec_fn=limit_files(args.nofile))
    try:
        wait_port(port, proc)
        before = log_path.stat().st_size
        stop_at = time.monotonic() + args.hold
        tasks = [asyncio.create_task(slow_client(port, stop_at, row)) for _ in range(args.connections)]
        tasks.append(asyncio.create_task(normal_client(port, stop_at, row)))
        while not all(t.done() for t in tasks[-1:]):
            row.most_fds = max(row.most_fds, open_files(proc.pid))
            await asyncio.sleep(0.5)
        await asyncio.gather(*tasks, return_exceptions=True)
        text = log_path.read_bytes()[before:]
        row.log_bytes = len(text)
        row.log_lines = text.count(b"\n")
        row.tracebacks = text.count(b"Traceback (most recent call last)")
    finally:
        stop(proc)
        log_path.unlink()
    return row


def export(ref: str) -> Path:
    """server/ and plumbing/ of git `ref` in a temporary folder."""
    out = Path(tempfile.mkdtemp(prefix="slow-clients-"))
    archive = subprocess.run(["git", "archive", ref, "server", "plumbing"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB" if n >= 1e3 else f"{n} B"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=1100)
    parser.add_argument("--nofile", type=int, default=1024, help="the server's descriptor limit")
    parser.add_argument("--hold", type=float, default=45.0, help="seconds the attack lasts")
    parser.add_argument("--compare", metavar="REF", help="also run the server of this git ref, first")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, args.connections + 256)), hard))

    stub_port = free_port()
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONUNBUFFERED": "1", "MCP_CHAT_DAEMON": "0",
           "NAVER_API_BASE_URL": f"http://127.0.0.1:{stub_port}", "NAVER_CLIENT_ID": CLIENT_ID,
           "NAVER_CLIENT_SECRET": CLIENT_SECRET, "XDG_CONFIG_HOME": "/nonexistent"}
    stub = subprocess.Popen([sys.executable, "-m", "tests.stubs.naver_stub", "--port", str(stub_port),
                             "--client-id", CLIENT_ID, "--client-secret", CLIENT_SECRET], cwd=ROOT,
                            env={**env, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    versions: list[tuple[str, Path]] = []
    old = export(args.compare) if args.compare else None
    if old is not None:
        versions.append((args.compare, old))
    versions.append(("this tree", ROOT))
    try:
        wait_port(stub_port, stub)
        rows = [await run(name, code, args, env) for name, code in versions]
    finally:
        stop(stub)
        if old is not None:
            shutil.rmtree(old)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; {args.connections} slow-body connections "
          f"for {args.hold:g} s; server descriptor limit {args.nofile}; a normal `initialize` every "
          f"{NORMAL_EVERY:g} s, {NORMAL_WAIT:g} s to answer\n")
    print("| server | most open descriptors | slow connections closed by the server | normal requests answered "
          "| p50 / max s | log grew by | log lines | tracebacks |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        total = len(r.answered) + r.unanswered
        lat = (f"{statistics.median(r.answered):.2f} / {max(r.answered):.2f}" if r.answered else "-")
        print(f"| {r.version} | {r.most_fds} | {r.reconnects} | {len(r.answered)} of {total} | {lat} "
              f"| {size(r.log_bytes)} | {r.log_lines} | {r.tracebacks} |")


if __name__ == "__main__":
    asyncio.run(main())
