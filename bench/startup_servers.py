"""Start-up with many MCP servers (issue 41): launch to prompt, and Enter to the first request,
for mcp-chat (warm and cold) and a peer, measured the same way at a pseudo-terminal.

    python bench/startup_servers.py [--runs 3] [--slow 10] [--peer fast-agent|none]

Each run starts the client on a pty (answering cursor-position requests like a terminal), times
the prompt (mcp-chat: the glyph drawn at once, then the prompt ready after its greeting; a peer:
its prompt), types a message and Enter as soon as the prompt is ready, and times the first request
the recording stub model (tests/stubs/llm_stub.py) receives, with how many tools it carried.
Servers: generated stdio servers (tests/stubs/many_tools_server.py, 8 tools each), 0, 5 (2 slow)
or 25 (10 slow); a slow one sleeps --slow seconds before reading its input. mcp-chat warm runs
with its pre-imported process, cold with MCP_CHAT_DAEMON=0 (the servers are cold Python
processes in every case). The peer (pinned, in its own venv under MCP_CHAT_PEERS_DIR, default
bench/out/peers) is installed as bench/peers.py does. Prints a Markdown table; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import pty
import select
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("MCP_CHAT_PEERS_DIR", str(ROOT / "bench" / "out" / "peers"))

import peers  # noqa: E402 - install() and the peers' pins (bench/peers.py)
from tests.stubs.llm_stub import LLMStub  # noqa: E402
from tests.stubs.many_tools_server import DOMAINS  # noqa: E402

SERVER = ROOT / "tests" / "stubs" / "many_tools_server.py"
SIZES = ((0, 0), (5, 2), (25, 10))  # (servers, of them slow)
MESSAGE = "안녕하세요"
CPR = b"\x1b[6n"  # a cursor-position request: a terminal answers it


def servers(n: int, slow: int, delay: float) -> dict[str, dict]:
    """n generated stdio servers, the first `slow` of them reading their input only after `delay` s."""
    out = {}
    for i, domain in enumerate(list(DOMAINS)[:n]):
        args = [str(SERVER), domain, *(["--delay", str(delay)] if i < slow else [])]
        out[domain] = {"command": sys.executable, "args": args}
    return out


@dataclass
class Run:
    glyph: float | None = None  # launch -> a prompt on screen
    ready: float | None = None  # launch -> the prompt ready to edit (what a peer draws once)
    enter_to_request: float | None = None
    tools: int | None = None  # in the first request


def drive(argv: list[str], env: dict, cwd: Path, llm: LLMStub, ready_after: bytes | None,
          timeout: float = 120) -> Run:
    """One run on a pty: the prompt, a message with Enter once it is ready, the first request."""
    llm.clear()
    run = Run()
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execvpe(argv[0], argv, env)
    seen, enter = b"", None
    try:
        while time.perf_counter() - started < timeout:
            r, _, _ = select.select([fd], [], [], 0.005)
            if r:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if CPR in chunk:
                    os.write(fd, b"\x1b[1;1R")
                seen += chunk
            now = time.perf_counter() - started
            if run.glyph is None and "❯".encode() in seen:
                run.glyph = now
            if run.ready is None and run.glyph is not None:
                tail = seen[seen.find(ready_after):] if ready_after and ready_after in seen else (None if ready_after else seen)
                if tail is not None and "❯".encode() in tail:
                    run.ready = now
                    os.write(fd, MESSAGE.encode() + b"\r")
                    enter = time.perf_counter()
            if enter is not None and llm.requests:
                body = llm.requests[0]
                run.enter_to_request = time.perf_counter() - enter
                run.tools = len(body.get("tools") or [])
                break
    finally:
        try:
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and os.waitpid(pid, os.WNOHANG) == (0, 0):
                time.sleep(0.05)
            else:
                if time.monotonic() >= deadline:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)
    return run


def mcp_chat(home: Path, db: Path, llm: LLMStub, rundir: Path, cold: bool, config: Path) -> tuple[list[str], dict]:
    """`home` is the same for every run: the pre-imported process serves only the environment it
    was started in."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "LANG": "C.UTF-8", "TERM": "xterm-256color",
           "PYTHONPATH": str(ROOT), "CLOVA_STUDIO_API_KEY": "bench-key", "CLOVA_STUDIO_BASE_URL": llm.base_url,
           "MCP_CHAT_RUNTIME_DIR": str(rundir), "MCP_CHAT_DAEMON": "0" if cold else "1"}
    argv = [sys.executable, "-m", "client", "--new", "--no-memory", "--db", str(db),
            "--mcp-config", str(config)]
    return argv, env


def fast_agent(home: Path, llm: LLMStub, config: dict) -> tuple[list[str], dict]:
    lines = [f"default_model: generic.stub\ngeneric:\n  api_key: bench-key\n  base_url: {llm.base_url}\n",
             "mcp:\n  servers:\n" if config else ""]
    for name, s in config.items():
        lines.append(f"    {name}:\n      command: {json.dumps(s['command'])}\n      args: {json.dumps(s['args'])}\n")
    (home / "fastagent.config.yaml").write_text("".join(lines))
    venv = peers.venv_of(next(p for p in peers.PEERS if p.name == "fast-agent"))
    env = {"PATH": f"{venv / 'bin'}:{os.environ.get('PATH', '')}", "HOME": str(home), "LANG": "C.UTF-8",
           "TERM": "xterm-256color", "GENERIC_API_KEY": "bench-key"}
    argv = [str(venv / "bin" / "fast-agent"), "go", "--model", "generic.stub",
            *(["--servers", ",".join(config)] if config else [])]
    return argv, env


def med(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


def cell(v: float | None) -> str:
    return f"{v:.2f}" if v is not None else "–"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--slow", type=float, default=10.0)
    ap.add_argument("--peer", default="fast-agent", choices=("fast-agent", "none"))
    args = ap.parse_args()
    clients = ["mcp-chat warm", "mcp-chat cold"]
    broken = ""
    if args.peer != "none":
        broken = peers.install(next(p for p in peers.PEERS if p.name == args.peer)) or ""
        if not broken:
            clients.append(args.peer)
    greeting = "원하시는 요청을 입력해 주세요".encode()
    results: dict[tuple[str, int], list[Run]] = {}
    with tempfile.TemporaryDirectory(prefix="startup-servers-") as tmp, LLMStub() as llm:
        rundir = Path(tmp) / "rt"
        rundir.mkdir(mode=0o700)
        configs = {}
        for n, slow in SIZES:
            configs[n] = servers(n, slow, args.slow)
            (Path(tmp) / f"mcp-{n}.json").write_text(json.dumps({"mcpServers": configs[n]}))
        import subprocess

        warm_argv, warm_env = mcp_chat(Path(tmp), Path(tmp) / "chat.db", llm, rundir, False, Path(tmp) / "mcp-0.json")
        subprocess.run([sys.executable, "-m", "client", "daemon", "start"], env=warm_env, capture_output=True)
        for i in range(args.runs):  # interleaved: a change of the machine's load hits every client alike
            for n, _ in SIZES:
                for client in clients:
                    home = Path(tmp) / f"{client.replace(' ', '-')}-{n}-{i}"
                    home.mkdir()
                    config = Path(tmp) / f"mcp-{n}.json"
                    if client.startswith("mcp-chat"):
                        argv, env = mcp_chat(Path(tmp), home / "chat.db", llm, rundir, client.endswith("cold"), config)
                        run = drive(argv, env, home, llm, greeting)
                    else:
                        argv, env = fast_agent(home, llm, configs[n])
                        run = drive(argv, env, home, llm, None)
                    results.setdefault((client, n), []).append(run)
                    sys.stderr.write(f"  {client} {n} servers: {run}\n")
    load = os.getloadavg()
    print(f"{platform.python_implementation()} {platform.python_version()} · {os.cpu_count()} CPUs · load average "
          f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} · median of {args.runs} runs, interleaved · slow servers "
          f"sleep {args.slow:g} s before serving\n")
    print("| client | servers (slow) | launch to prompt s (ready) | Enter to first request s | tools in it |")
    print("|---|---:|---:|---:|---:|")
    for client in clients:
        for n, slow in SIZES:
            runs = results[(client, n)]
            glyph, ready = med([r.glyph for r in runs]), med([r.ready for r in runs])
            shown = cell(glyph) + (f" ({cell(ready)})" if ready is not None and glyph is not None and ready - glyph > 0.01 else "")
            tools = sorted({r.tools for r in runs if r.tools is not None})
            print(f"| {client} | {n} ({slow}) | {shown} | {cell(med([r.enter_to_request for r in runs]))} "
                  f"| {'/'.join(str(t) for t in tools) or '–'} |")
    if broken:
        print(f"| {args.peer} | not measured: {broken} | | | |")


if __name__ == "__main__":
    main()
