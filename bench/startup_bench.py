"""Start-up time of `mcp-chat`: --help, --version, and a piped one-turn run to the first
byte of the answer, against the recording model stub (tests/stubs/llm_stub.py) with the
bundled search server spawned over stdio as usual.

    python bench/startup_bench.py [--runs 5] [--local]

Cold rows run with MCP_CHAT_DAEMON=0; the "served" rows after the pre-imported processes
started (docs/startup.md). `--local` adds the local model's first and second start (the second
reuses the server kept warm by MCP_CHAT_LOCAL_KEEP_ALIVE); run it under
`flock /tmp/mcp-chat-llama.lock` on a shared machine.

Prints a Markdown table: wall-clock median and best of N runs, and the median CPU time
(user + system of the process and its children, steadier on a shared machine). Nothing
is asserted: the figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.stubs.llm_stub import LLMStub  # noqa: E402


def command() -> list[str]:
    """The installed console script when there is one (what users run), else python -m client."""
    script = Path(sys.executable).parent / "mcp-chat"
    return [str(script)] if script.exists() else [sys.executable, "-m", "client"]


def cpu_children() -> float:
    """User + system CPU seconds of the finished children so far (steadier than wall time on a busy machine)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def time_to_exit(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run to its exit."""
    cpu, started = cpu_children(), time.perf_counter()
    subprocess.run(argv, env=env, capture_output=True, check=True)
    return time.perf_counter() - started, cpu_children() - cpu


def time_to_first_answer(argv: list[str], env: dict[str, str], stdin: bytes) -> tuple[float, float]:
    """(seconds to the first stdout byte, seconds to exit)."""
    started = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(stdin)
    p.stdin.close()
    first = p.stdout.read(1)
    t_first = time.perf_counter() - started
    p.stdout.read()
    code = p.wait()
    if code != 0 or not first:
        raise SystemExit(f"{argv} failed with exit code {code}")
    return t_first, time.perf_counter() - started


def local_second_start(runs: int) -> list[tuple[str, list[float], list[float] | None]]:
    """`mcp-chat --provider local -p` twice per round with the server kept warm in between
    (MCP_CHAT_LOCAL_KEEP_ALIVE), stopped after each round: the first pays the load of the weights,
    the second reuses the server. Run under `flock /tmp/mcp-chat-llama.lock` on a shared machine."""
    first, second = [], []
    with tempfile.TemporaryDirectory() as tmp:
        rundir = Path(tmp) / "rt"
        rundir.mkdir(mode=0o700)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": tmp, "PYTHONPATH": str(ROOT), "MCP_CHAT_TEMPERATURE": "0",
               "MCP_CHAT_RUNTIME_DIR": str(rundir), "MCP_CHAT_LOCAL_KEEP_ALIVE": "120",
               "MCP_CHAT_CACHE": os.environ.get("MCP_CHAT_CACHE", str(Path.home() / ".cache" / "mcp-chat"))}
        argv = [*command(), "--provider", "local", "-p", "--new", "--no-memory", "--db", str(Path(tmp) / "l.db")]
        for _ in range(runs):
            for out in (first, second):
                out.append(time_to_first_answer(argv, env, "Say OK.".encode())[0])
            subprocess.run([*command(), "local", "stop"], env=env, capture_output=True, check=True)
    return [("mcp-chat --provider local -p → first answer byte, server not running (loads the weights)", first, None),
            ("mcp-chat --provider local -p → first answer byte, second start (the kept server)", second, None)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--local", action="store_true", help="also the local model's first and second start")
    args = ap.parse_args()
    cmd = command()
    with tempfile.TemporaryDirectory() as tmp, LLMStub() as llm:
        rundir = Path(tmp) / "rt"
        rundir.mkdir(mode=0o700)
        env = {
            "PATH": os.environ.get("PATH", ""), "HOME": tmp, "PYTHONPATH": str(ROOT),
            "CLOVA_STUDIO_API_KEY": "bench-key-0000", "CLOVA_STUDIO_BASE_URL": llm.base_url,
            "NAVER_CLIENT_ID": "x", "NAVER_CLIENT_SECRET": "y", "NAVER_API_BASE_URL": "http://127.0.0.1:9",
            "MCP_CHAT_RUNTIME_DIR": str(rundir), "MCP_CHAT_DAEMON": "0",  # cold unless a row says warm
        }
        db = str(Path(tmp) / "bench.db")
        rows: list[tuple[str, list[float], list[float] | None]] = []

        def exits(name: str, argv: list[str]) -> None:
            runs = [time_to_exit(argv, env) for _ in range(args.runs)]
            rows.append((name, [w for w, _ in runs], [c for _, c in runs]))

        exits("(python -c pass: the interpreter alone)", [sys.executable, "-c", "pass"])
        exits("mcp-chat --help", [*cmd, "--help"])
        exits("mcp-chat --version", [*cmd, "--version"])
        once = []
        for _ in range(args.runs):
            cpu = cpu_children()
            first, done = time_to_first_answer([*cmd, "-p", "--new", "--no-memory", "--db", db], env, "안녕".encode())
            once.append((first, done, cpu_children() - cpu))
        rows.append(("mcp-chat -p (stdin) → first answer byte", [a for a, _, _ in once], None))
        rows.append(("mcp-chat -p (stdin) → exit (CPU incl. the search server)", [b for _, b, _ in once], [c for _, _, c in once]))
        piped = [time_to_first_answer([*cmd, "--new", "--no-memory", "--db", db], env, "안녕\n".encode())
                 for _ in range(args.runs)]
        rows.append(("echo 안녕 \\| mcp-chat --new → first answer byte", [a for a, _ in piped], None))
        warm = {**env, "MCP_CHAT_DAEMON": "1"}
        time_to_first_answer([*cmd, "-p", "--new", "--no-memory", "--db", db], warm, "안녕".encode())  # starts the daemons
        deadline = time.monotonic() + 120
        while len(list(rundir.glob("*.sock"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        served = [time_to_first_answer([*cmd, "-p", "--new", "--no-memory", "--db", db], warm, "안녕".encode())
                  for _ in range(args.runs)]
        rows.append(("mcp-chat -p, served by the pre-imported processes → first answer byte", [a for a, _ in served], None))
        rows.append(("mcp-chat -p, served by the pre-imported processes → exit", [b for _, b in served], None))
        subprocess.run([*cmd, "daemon", "stop"], env=env, capture_output=True)
    if args.local:
        rows += local_second_start(args.runs)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{platform.python_implementation()} {platform.python_version()} · {os.cpu_count()} CPUs · "
          f"load average {load:.1f} · {args.runs} runs · `{' '.join(Path(c).name for c in cmd)}`\n")
    print("| what | wall median (s) | wall best (s) | CPU median (s) |")
    print("|---|---:|---:|---:|")
    for name, wall, cpu in rows:
        cpu_text = f"{statistics.median(cpu):.2f}" if cpu else "–"
        print(f"| {name} | {statistics.median(wall):.2f} | {min(wall):.2f} | {cpu_text} |")


if __name__ == "__main__":
    main()
