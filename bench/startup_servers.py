"""Start-up with MCP servers (issues 41, 48): Enter to the first request and the tools in it, on a
first and a second launch, at a pseudo-terminal.

    python bench/startup_servers.py [--runs 3] [--slow 10] [--later 12] [--before ROOT]
                                    [--only servers,bundled] [--peer fast-agent|none]

Each run starts the client on a pty (answering cursor-position requests like a terminal), times the
prompt (mcp-chat: the glyph drawn at once, then the prompt ready after its greeting; a peer: its
prompt), types a message and Enter as soon as the prompt is ready, and times the first request the
recording stub model (tests/stubs/llm_stub.py) receives, with the tools it carried. The stub plays a
model that calls only tools it was offered.

servers: generated stdio servers (tests/stubs/many_tools_server.py, 8 tools each): 1, 5 (2 slow) and
25 (10 slow); a slow one sleeps --slow seconds before it starts. Each run is a pair of launches with
one user cache folder: the first launch ever (nothing saved; it stays until every server's list is
saved, or a second message --later s after the prompt was answered), then a second launch. On the
second launch the first message asks for a tool of a slow server: how long until its result reached
the model, and whether it ran. MCP_CHAT_TOOL_SEARCH=off, so a request carries every schema and its
tool count says which servers were offered. The client runs with its pre-imported process.

bundled: the default configuration (the bundled search server, against the Naver stub), nothing
saved (a first launch ever), with and without the pre-imported processes, beside two CPU burners
(`python3 -c 'while 1: pass'`, ended after): `강남역 맛집 검색해줘` typed at once; whether web_search
was offered, when the search reached Naver and when its result reached the model.

--before ROOT: the same runs of another checkout (e.g. `git archive <commit>` unpacked), interleaved
with this one's, so a change of the machine's load hits both alike. --peer: the first-launch rows of
a peer client too (bench/peers.py installs it). Prints Markdown tables; asserts nothing.
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
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("MCP_CHAT_PEERS_DIR", str(ROOT / "bench" / "out" / "peers"))

import peers  # noqa: E402 - install() and the peers' pins (bench/peers.py)
from tests.stubs.llm_stub import LLMStub  # noqa: E402
from tests.stubs.many_tools_server import DOMAINS  # noqa: E402
from tests.stubs.naver_stub import NaverStub  # noqa: E402

SERVER = ROOT / "tests" / "stubs" / "many_tools_server.py"
SIZES = ((1, 0), (5, 2), (25, 10))  # (servers, of them slow)
HELLO = "안녕하세요"
SEARCH = "강남역 맛집 검색해줘"
CPR = b"\x1b[6n"  # a cursor-position request: a terminal answers it
GREETING = "원하시는 요청을 입력해 주세요".encode()


def servers(n: int, slow: int, delay: float) -> dict[str, dict]:
    """n generated stdio servers, the first `slow` of them starting only after `delay` s."""
    out = {}
    for i, domain in enumerate(list(DOMAINS)[:n]):
        args = [str(SERVER), domain, *(["--delay", str(delay)] if i < slow else [])]
        out[domain] = {"command": sys.executable, "args": args}
    return out


def slow_call(config: dict[str, dict]) -> str:
    """The message that asks for the first slow server's first tool (a stub directive)."""
    domain = next(d for d, s in config.items() if "--delay" in s["args"])
    return f'{HELLO} [tool:{domain}_list_{DOMAINS[domain][1][0]} {{"workspace": "w", "query": "q"}}]'


def offered_only(rule: Callable[[dict, int], dict]) -> Callable[[dict, int], dict]:
    """The stub as a real model: it calls only tools the request offers."""
    def wrapped(body: dict, n: int) -> dict:
        reply = rule(body, n)
        offered = {t["function"]["name"] for t in body.get("tools") or []}
        if any(name not in offered for name, _ in reply.get("tool_calls") or []):
            return {"text": "도구 없이 답합니다"}
        return reply
    return wrapped


@dataclass
class Run:
    glyph: float | None = None  # launch -> a prompt on screen
    ready: float | None = None  # launch -> the prompt ready to edit (what a peer draws once)
    enter_to_request: float | None = None
    tools: list[str] | None = None  # in the first request
    later_tools: int | None = None  # in a second message, sent `later` s after the prompt was ready
    result: float | None = None  # Enter -> a request carrying a tool result
    ran: bool | None = None  # that result is the tool's output (not an error)
    searched: float | None = None  # Enter -> the Naver stub got the search
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


@dataclass
class Plan:
    message: str = HELLO
    ready_after: bytes | None = GREETING  # the prompt counts once this was drawn (None: any prompt)
    later: float | None = None  # a second message this long after the prompt was ready
    call: bool = False  # the first message should lead to a tool call: wait for its result
    naver: NaverStub | None = None  # the search reaches it
    keep: Callable[[], bool] | None = None  # stay until this holds (every list saved)


def drive(argv: list[str], env: dict, cwd: Path, llm: LLMStub, plan: Plan, timeout: float = 120) -> Run:
    """One launch on a pty: the prompt, the message with Enter once it is ready, the first request,
    then what the plan waits for."""
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
                tail = seen[seen.find(plan.ready_after):] if plan.ready_after and plan.ready_after in seen \
                    else (None if plan.ready_after else seen)
                if tail is not None and "❯".encode() in tail:
                    run.ready = now
                    os.write(fd, plan.message.encode() + b"\r")
                    enter = time.perf_counter()
            turns = llm.turn_requests()
            if enter is not None and run.enter_to_request is None and turns:
                run.enter_to_request = time.perf_counter() - enter
                run.tools = [t["function"]["name"] for t in turns[0].get("tools") or []]
            if plan.naver is not None and run.searched is None and enter is not None and plan.naver.requests:
                run.searched = time.perf_counter() - enter
            results = [m for r in turns for m in r.get("messages", []) if m.get("role") == "tool"]
            if enter is not None and run.result is None and results:
                run.result = time.perf_counter() - enter
                run.ran = " ran: " in str(results[0].get("content")) or '"items"' in str(results[0].get("content"))
            called = bool(turns) and bool(llm.replies[llm.requests.index(turns[0])].get("tool_calls"))
            first_done = run.enter_to_request is not None and (not plan.call or not called or run.result is not None)
            if plan.later is not None and first_done and not second and now >= run.ready + plan.later:
                os.write(fd, (HELLO + " 2").encode() + b"\r")
                second = True
            if second and run.later_tools is None and len(turns) >= 2:
                run.later_tools = len(turns[-1].get("tools") or [])
            if first_done and (plan.later is None or run.later_tools is not None) \
                    and (plan.keep is None or plan.keep()):
                break
    finally:
        end(pid)
        os.close(fd)
    return run


def mcp_chat(root: Path, cache: Path, db: Path, llm: LLMStub, rundir: Path, config: Path | None,
             extra: dict | None = None) -> tuple[list[str], dict]:
    """HOME is the same for every warm run: the pre-imported process serves the environment it
    was started in; each pair of launches has its own cache folder."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(rundir.parent), "LANG": "C.UTF-8",
           "TERM": "xterm-256color", "PYTHONPATH": str(root), "CLOVA_STUDIO_API_KEY": "bench-key",
           "CLOVA_STUDIO_BASE_URL": llm.base_url, "MCP_CHAT_RUNTIME_DIR": str(rundir), "MCP_CHAT_DAEMON": "1",
           "XDG_CACHE_HOME": str(cache), "MCP_CHAT_TOOL_SEARCH": "off", "MCP_CHAT_YES": "1",  # no approval question
           **(extra or {})}
    argv = [sys.executable, "-m", "client", "--new", "--no-memory", "--db", str(db),
            *(["--mcp-config", str(config)] if config else [])]
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


def saved_count(cache: Path) -> int:
    return len(list((cache / "mcp-chat" / "tools").glob("*.json")))


def med(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


def cell(v: float | None) -> str:
    return f"{v:.2f}" if v is not None else "–"


def counts(values: list[int | None]) -> str:
    return "/".join(str(v) for v in sorted({v for v in values if v is not None})) or "–"


def failed_note(runs: list[Run]) -> str:
    bad = [r.failed for r in runs if r.failed]
    return f" [{len(bad)} of {len(runs)} failed: {bad[0][-70:]}]" if bad else ""


def bench_servers(args, clients: dict[str, Path], tmp: Path, llm: LLMStub, rundirs: dict[str, Path]) -> None:
    configs = {}
    for n, slow in SIZES:
        configs[n] = servers(n, slow, args.slow)
        (tmp / f"mcp-{n}.json").write_text(json.dumps({"mcpServers": configs[n]}))
    rows: dict[tuple[str, str, int], list[Run]] = {}
    for i in range(args.runs):  # interleaved: a change of the machine's load hits every client alike
        for n, slow in SIZES:
            for label, root in clients.items():
                if label == args.peer:
                    home = tmp / f"peer-{n}-{i}"
                    home.mkdir()
                    argv, env = fast_agent(home, llm, configs[n])
                    run = drive(argv, env, home, llm, Plan(ready_after=None, later=args.later))
                    rows.setdefault((label, "first", n), []).append(run)
                    sys.stderr.write(f"  {label} {n}: {run}\n")
                    continue
                home = tmp / f"{label}-{n}-{i}"
                home.mkdir()
                cache, config = home / "cache", tmp / f"mcp-{n}.json"
                for launch in ("first", "second"):
                    call = launch == "second" and slow > 0
                    plan = Plan(message=slow_call(configs[n]) if call else HELLO, call=call,
                                later=args.later if launch == "first" else None,
                                keep=(lambda: saved_count(cache) >= n) if launch == "first" and label == "mcp-chat" else None)
                    argv, env = mcp_chat(root, cache, home / "chat.db", llm, rundirs[label], config)
                    llm.rule = offered_only(LLMStub.rule.__get__(llm))
                    run = drive(argv, env, home, llm, plan)
                    rows.setdefault((label, launch, n), []).append(run)
                    sys.stderr.write(f"  {label} {launch} {n}: {run}\n")
                    time.sleep(1.0)  # the last run's processes are gone; let the machine settle
    print(f"\n### servers: {header(args)} · slow servers start after {args.slow:g} s\n")
    print(f"| client | launch | servers (slow) | launch to prompt s (ready) | Enter to first request s | tools in it "
          f"| tools {args.later:g} s later | slow server's tool: Enter to its result s (ran) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for label in clients:
        for launch in ("first", "second"):
            for n, slow in SIZES:
                runs = rows.get((label, launch, n))
                if not runs:
                    continue
                glyph, ready = med([r.glyph for r in runs]), med([r.ready for r in runs])
                shown = cell(glyph) + (f" ({cell(ready)})" if ready is not None and glyph is not None and ready - glyph > 0.01 else "")
                ran = [r.ran for r in runs if r.ran is not None]
                call = f"{cell(med([r.result for r in runs]))} ({sum(ran)}/{len(runs)})" if launch == "second" and slow else ""
                print(f"| {label} | {launch} | {n} ({slow}) | {shown} | {cell(med([r.enter_to_request for r in runs]))} "
                      f"| {counts([len(r.tools) if r.tools is not None else None for r in runs])} of {8 * n} "
                      f"| {counts([r.later_tools for r in runs])} | {call}{failed_note(runs)} |")


def bench_bundled(args, clients: dict[str, Path], tmp: Path, llm: LLMStub, rundirs: dict[str, Path]) -> None:
    """warm: the client's pre-imported process runs (the bundled server's starts with the first run);
    cold: neither (MCP_CHAT_DAEMON=0). Both: nothing saved, a fresh cache folder."""
    burners = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(2)]
    rows: dict[str, list[Run]] = {}
    try:
        with NaverStub() as naver:
            for i in range(args.runs):
                for label, root in clients.items():
                    for mode in ("warm", "cold") if label != args.peer else ():
                        home = tmp / f"bundled-{label}-{mode}-{i}"
                        home.mkdir()
                        naver.requests.clear()
                        extra = {"NAVER_CLIENT_ID": naver.client_id, "NAVER_CLIENT_SECRET": naver.client_secret,
                                 "NAVER_API_BASE_URL": naver.base_url, **({"MCP_CHAT_DAEMON": "0"} if mode == "cold" else {})}
                        argv, env = mcp_chat(root, home / "cache", home / "chat.db", llm, rundirs[label], None, extra)
                        llm.rule = offered_only(LLMStub.rule.__get__(llm))
                        run = drive(argv, env, home, llm, Plan(message=SEARCH, call=True, naver=naver))
                        rows.setdefault(f"{label} {mode}", []).append(run)
                        sys.stderr.write(f"  bundled {label} {mode}: {run}\n")
                        time.sleep(1.0)
    finally:
        for b in burners:
            b.kill()
            b.wait()
    print(f"\n### bundled search alone, nothing saved, beside two CPU burners: {header(args)}\n")
    print("| client | launch to prompt s (ready) | Enter to first request s | web_search in it "
          "| Enter to the search at Naver s | Enter to its result at the model s |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, runs in rows.items():
        glyph, ready = med([r.glyph for r in runs]), med([r.ready for r in runs])
        offered = sum(1 for r in runs if r.tools and "web_search" in r.tools)
        print(f"| {label} | {cell(glyph)} ({cell(ready)}) | {cell(med([r.enter_to_request for r in runs]))} "
              f"| {offered} of {len(runs)} | {cell(med([r.searched for r in runs]))} "
              f"| {cell(med([r.result for r in runs]))}{failed_note(runs)} |")


def header(args) -> str:
    load = os.getloadavg()
    return (f"{platform.python_implementation()} {platform.python_version()} · {os.cpu_count()} CPUs · load average "
            f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} · median of {args.runs} runs, interleaved")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--slow", type=float, default=10.0)
    ap.add_argument("--later", type=float, default=12.0, help="seconds after the prompt to send a second message")
    ap.add_argument("--before", type=Path, help="another checkout to measure alongside (e.g. the commit before)")
    ap.add_argument("--only", default="servers,bundled")
    ap.add_argument("--sizes", default="1,5,25", help="of the servers runs: 1 (0 slow), 5 (2), 25 (10)")
    ap.add_argument("--peer", default="none", choices=("fast-agent", "none"))
    args = ap.parse_args()
    global SIZES
    SIZES = tuple(size for size in SIZES if str(size[0]) in args.sizes.split(","))
    clients = {"mcp-chat": ROOT, **({"before": args.before.resolve()} if args.before else {})}
    if args.peer != "none":
        broken = peers.install(next(p for p in peers.PEERS if p.name == args.peer))
        if broken:
            print(f"{args.peer}: not measured: {broken}")
        else:
            clients[args.peer] = ROOT
    with tempfile.TemporaryDirectory(prefix="startup-servers-") as tmp_, LLMStub() as llm:
        tmp = Path(tmp_)
        rundirs = {}
        for label, root in clients.items():
            if label == args.peer:
                continue
            rundirs[label] = tmp / f"rt-{label}"
            rundirs[label].mkdir(mode=0o700)
            argv, env = mcp_chat(root, tmp / "cache-warmup", tmp / "warmup.db", llm, rundirs[label], None)
            subprocess.run([sys.executable, "-m", "client", "daemon", "start"], env=env, cwd=tmp, capture_output=True)
        try:
            if "servers" in args.only:
                bench_servers(args, clients, tmp, llm, rundirs)
            if "bundled" in args.only:
                bench_bundled(args, clients, tmp, llm, rundirs)
        finally:
            for label, root in clients.items():
                if label in rundirs:
                    argv, env = mcp_chat(root, tmp / "cache-warmup", tmp / "warmup.db", llm, rundirs[label], None)
                    subprocess.run([sys.executable, "-m", "client", "daemon", "stop"], env=env, cwd=tmp,
                                   capture_output=True)


if __name__ == "__main__":
    main()
