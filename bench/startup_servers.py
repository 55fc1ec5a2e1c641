"""Start-up with many MCP servers (issue 41): launch to prompt, and Enter to the first request,
for mcp-chat (warm and cold) and a peer, measured the same way at a pseudo-terminal.

    python bench/startup_servers.py [--runs 3] [--slow 10] [--later 12] [--peer fast-agent|none] [--root CHECKOUT]

Each run starts the client on a pty (answering cursor-position requests like a terminal), times
the prompt (mcp-chat: the glyph drawn at once, then the prompt ready after its greeting; a peer:
its prompt), types a message and Enter as soon as the prompt is ready, and times the first request
the recording stub model (tests/stubs/llm_stub.py) receives, with how many tools it carried; a
second message --later s after the prompt shows the tools of the servers up by then.
Servers: generated stdio servers (tests/stubs/many_tools_server.py, 8 tools each), 0, 5 (2 slow)
or 25 (10 slow); a slow one sleeps --slow seconds before reading its input. mcp-chat warm runs
with its pre-imported process, cold with MCP_CHAT_DAEMON=0 (the servers are cold Python
processes in every case; MCP_CHAT_TOOL_SEARCH=off, so a request carries every schema as the
peer's do and its tool count says which servers were up). The peer (pinned, in its own venv under MCP_CHAT_PEERS_DIR, default
bench/out/peers) is installed as bench/peers.py does. Prints a Markdown table; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import pty
import re
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
    later_tools: int | None = None  # in a second message, sent `later` s after the prompt was ready
    failed: str = ""


def descendants(pid: int) -> list[int]:
    """Every process under `pid` (its MCP servers), from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            pass
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def leftovers() -> None:
    """Our stub servers a run left behind (a client served by the pre-imported process starts them
    outside the launcher's tree), ended so their start-up does not load the next run."""
    mine = str(SERVER).encode()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if mine in cmdline.read_bytes():
                os.kill(int(cmdline.parent.name), signal.SIGKILL)
        except (OSError, ValueError):
            pass


def end(pid: int) -> None:
    """The client and all its servers gone before the next run (no load left behind)."""
    tree = descendants(pid)
    for p in [pid, *tree]:
        try:
            os.kill(p, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and os.waitpid(pid, os.WNOHANG) == (0, 0):
        time.sleep(0.05)
    for p in [pid, *tree]:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    leftovers()


def drive(argv: list[str], env: dict, cwd: Path, llm: LLMStub, ready_after: bytes | None, later: float,
          timeout: float = 120) -> Run:
    """One run on a pty: the prompt, a message with Enter once it is ready, the first request; a
    second message `later` s after the prompt was ready, and the tools its request carried."""
    llm.clear()
    run = Run()
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execvpe(argv[0], argv, env)
    seen, enter, second = b"", None, False
    try:
        while time.perf_counter() - started < timeout:
            r, _, _ = select.select([fd], [], [], 0.005)
            if r:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode(errors="replace"))
                    run.failed = "exited: " + " ".join(text.split())[-300:]
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
            if enter is not None and run.enter_to_request is None and llm.requests:
                run.enter_to_request = time.perf_counter() - enter
                run.tools = len(llm.requests[0].get("tools") or [])
            if run.enter_to_request is not None and not second and run.ready is not None and now >= run.ready + later:
                os.write(fd, (MESSAGE + " 2").encode() + b"\r")
                second = True
            if second and len(llm.requests) >= 2:
                run.later_tools = len(llm.requests[1].get("tools") or [])
                break
    finally:
        end(pid)
        os.close(fd)
    return run


CLIENT_ROOT = ROOT  # --root: the mcp-chat checkout measured (e.g. the commit before, for a before/after)


def mcp_chat(home: Path, db: Path, llm: LLMStub, rundir: Path, cold: bool, config: Path) -> tuple[list[str], dict]:
    """`home` is the same for every run: the pre-imported process serves only the environment it
    was started in."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "LANG": "C.UTF-8", "TERM": "xterm-256color",
           "PYTHONPATH": str(CLIENT_ROOT), "CLOVA_STUDIO_API_KEY": "bench-key", "CLOVA_STUDIO_BASE_URL": llm.base_url,
           "MCP_CHAT_RUNTIME_DIR": str(rundir), "MCP_CHAT_DAEMON": "0" if cold else "1",
           "MCP_CHAT_TOOL_SEARCH": "off"}  # every schema sent, as the peer does: the count shows who is up
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
    ap.add_argument("--later", type=float, default=12.0, help="seconds after the prompt to send a second message")
    ap.add_argument("--peer", default="fast-agent", choices=("fast-agent", "none"))
    ap.add_argument("--root", type=Path, default=ROOT, help="the mcp-chat checkout to measure (default: this one)")
    args = ap.parse_args()
    global CLIENT_ROOT
    CLIENT_ROOT = args.root.resolve()
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
        subprocess.run([sys.executable, "-m", "client", "daemon", "start"], env=warm_env, cwd=tmp, capture_output=True)
        for i in range(args.runs):  # interleaved: a change of the machine's load hits every client alike
            for n, _ in SIZES:
                for client in clients:
                    home = Path(tmp) / f"{client.replace(' ', '-')}-{n}-{i}"
                    home.mkdir()
                    config = Path(tmp) / f"mcp-{n}.json"
                    if client.startswith("mcp-chat"):
                        argv, env = mcp_chat(Path(tmp), home / "chat.db", llm, rundir, client.endswith("cold"), config)
                        run = drive(argv, env, home, llm, greeting, args.later)
                    else:
                        argv, env = fast_agent(home, llm, configs[n])
                        run = drive(argv, env, home, llm, None, args.later)
                    results.setdefault((client, n), []).append(run)
                    time.sleep(1.0)  # the last run's processes are gone; let the machine settle
                    sys.stderr.write(f"  {client} {n} servers: {run}\n")
    load = os.getloadavg()
    print(f"{platform.python_implementation()} {platform.python_version()} · {os.cpu_count()} CPUs · load average "
          f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} · median of {args.runs} runs, interleaved · slow servers "
          f"sleep {args.slow:g} s before serving\n")
    print(f"| client | servers (slow) | launch to prompt s (ready) | Enter to first request s | tools in it "
          f"| tools {args.later:g} s later |")
    print("|---|---:|---:|---:|---:|---:|")
    for client in clients:
        for n, slow in SIZES:
            runs = results[(client, n)]
            glyph, ready = med([r.glyph for r in runs]), med([r.ready for r in runs])
            shown = cell(glyph) + (f" ({cell(ready)})" if ready is not None and glyph is not None and ready - glyph > 0.01 else "")
            tools = "/".join(str(t) for t in sorted({r.tools for r in runs if r.tools is not None})) or "–"
            later = "/".join(str(t) for t in sorted({r.later_tools for r in runs if r.later_tools is not None})) or "–"
            failed = sum(1 for r in runs if r.failed)
            why = next((r.failed for r in runs if r.failed), "")
            why = why[why.find("Startup timed out"):][:70] if "Startup timed out" in why else why[-70:]
            note = f" [{failed} of {len(runs)} failed: {why}]" if failed else ""
            print(f"| {client} | {n} ({slow}) | {shown} | {cell(med([r.enter_to_request for r in runs]))} "
                  f"| {tools} | {later}{note} |")
    if broken:
        print(f"| {args.peer} | not measured: {broken} | | | | |")


if __name__ == "__main__":
    main()
