"""mcp-chat side by side with other terminal MCP clients, in one run, against one stand-in model
(the recording OpenAI-compatible stub, tests/stubs/llm_stub.py) and one MCP server over stdio
(our search server against the Naver stub).

    python bench/peers.py [--runs 10] [--cpu-runs 5] [--turns 50] [--only NAME,...] [--install-only]

Each peer is installed pinned, in its own virtual environment under ~/.cache/mcp-chat/peers
(`MCP_CHAT_PEERS_DIR`), outside the repository. Runs are interleaved (round-robin over the
clients), so a change in the machine's load hits every client alike and the ratios hold.
Printed, as Markdown: one-shot plain and with one tool call (wall median of N, CPU median of
the first M), time to the prompt where the client has one, per-turn median/p90 over a
conversation, request size at turns 10/25/50, peak RSS of a one-shot with a tool call; and
each figure's ratio to mcp-chat's. mcp-chat is measured as users run it (the pre-imported
process on, after one warm-up run) and cold (MCP_CHAT_DAEMON=0). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import pty
import re
import resource
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.stubs.llm_stub import LLMStub  # noqa: E402
from tests.stubs.naver_stub import NaverStub  # noqa: E402

PEERS_DIR = Path(os.environ.get("MCP_CHAT_PEERS_DIR", "") or Path.home() / ".cache" / "mcp-chat" / "peers")
PLAIN, TOOL = "안녕하세요, 오늘 기분 어때요?", "서울 날씨 검색해 줘"


@dataclass
class Peer:
    name: str
    python: str  # interpreter version for its venv (pyenv), "" for mcp-chat itself
    packages: list[str]
    setup: Callable[[Path, dict], dict]  # (home, ctx) -> extra environment
    oneshot: Callable[[Path, str], list[str]]  # (venv, prompt) -> argv
    prompt_marker: str | None = None  # interactive: what its prompt looks like
    interactive: Callable[[Path], list[str]] | None = None
    turn: Callable[[Path, str, int], list[str]] | None = None  # a process per turn (no session)
    env: dict = field(default_factory=dict)


def venv_of(peer: Peer) -> Path:
    return PEERS_DIR / peer.name


def install(peer: Peer) -> str | None:
    """Create the peer's venv and install its pinned packages (once); an error text or None."""
    if not peer.python:
        return None
    venv = venv_of(peer)
    stamp = venv / ".installed"
    want = " ".join(peer.packages)
    if stamp.exists() and stamp.read_text() == want:
        return None
    py = Path.home() / ".pyenv" / "versions" / peer.python / "bin" / "python"
    if not py.exists():
        py = Path(shutil.which(f"python{peer.python.rsplit('.', 1)[0]}") or "")
    if not py or not py.exists():
        return f"no Python {peer.python}"
    PEERS_DIR.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(py), "-m", "venv", str(venv)], check=True)
    p = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", *peer.packages], capture_output=True, text=True)
    if p.returncode != 0:
        return "pip: " + (p.stderr.strip().splitlines() or ["failed"])[-1]
    stamp.write_text(want)
    return None


# -- the peers ------------------------------------------------------------------------------
def _mcp_servers(ctx: dict) -> dict:
    return {"search": {"command": ctx["server"][0], "args": ctx["server"][1:], "env": ctx["server_env"]}}


def _setup_llm(home: Path, ctx: dict) -> dict:
    user = home / "llm"
    user.mkdir(parents=True, exist_ok=True)
    (user / "extra-openai-models.yaml").write_text(
        f"- model_id: stub\n  model_name: stub\n  api_base: {ctx['base_url']}\n  supports_tools: true\n")
    cfg = home / ".llm-tools-mcp"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "mcp.json").write_text(json.dumps({"mcpServers": _mcp_servers(ctx)}))
    return {"LLM_USER_PATH": str(user), "OPENAI_API_KEY": "bench-key", "LLM_TOOLS_MCP_CONFIG_DIR": str(cfg)}


def _setup_mcp_client_cli(home: Path, ctx: dict) -> dict:
    cfg = home / ".llm"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "config.json").write_text(json.dumps({
        "systemPrompt": "You are a helpful assistant.",
        "llm": {"provider": "openai", "model": "stub", "api_key": "bench-key", "base_url": ctx["base_url"]},
        "mcpServers": {n: {**s, "requires_confirmation": []} for n, s in _mcp_servers(ctx).items()},
    }))
    return {"OPENAI_API_KEY": "bench-key"}


def _setup_mcp_cli(home: Path, ctx: dict) -> dict:
    (home / "server_config.json").write_text(json.dumps({"mcpServers": _mcp_servers(ctx)}))
    return {"OPENAI_API_KEY": "bench-key", "OPENAI_API_BASE": ctx["base_url"], "OPENAI_BASE_URL": ctx["base_url"]}


def _setup_fast_agent(home: Path, ctx: dict) -> dict:
    servers = "".join(f"    {n}:\n      command: {json.dumps(s['command'])}\n      args: {json.dumps(s['args'])}\n"
                      f"      env: {json.dumps(s['env'])}\n" for n, s in _mcp_servers(ctx).items())
    (home / "fastagent.config.yaml").write_text(
        f"default_model: generic.stub\ngeneric:\n  api_key: bench-key\n  base_url: {ctx['base_url']}\n"
        f"mcp:\n  servers:\n{servers}")
    return {"GENERIC_API_KEY": "bench-key"}


def _setup_mcp_chat(home: Path, ctx: dict) -> dict:
    return {"CLOVA_STUDIO_API_KEY": "bench-key", "CLOVA_STUDIO_BASE_URL": ctx["base_url"],
            "PYTHONPATH": str(ROOT), "MCP_CHAT_RUNTIME_DIR": ctx["rundir"], **ctx["naver_env"]}


MCP_CHAT = [sys.executable, "-m", "client"]
PEERS = [
    Peer("mcp-chat", "", [], _setup_mcp_chat,
         lambda v, p: [*MCP_CHAT, "-p", p, "--new", "--yes", "--db", "chat.db"], prompt_marker="❯",
         interactive=lambda v: [*MCP_CHAT, "--new", "--yes", "--db", "chat.db"]),
    Peer("llm", "3.12.1", ["llm==0.36", "llm-tools-mcp==0.4", "mcp==1.30.0"], _setup_llm,
         lambda v, p: [str(v / "bin" / "llm"), "-m", "stub", "-T", "MCP", p], prompt_marker="> ",
         interactive=lambda v: [str(v / "bin" / "llm"), "chat", "-m", "stub", "-T", "MCP"]),
    Peer("mcp-client-cli", "3.12.1", ["mcp-client-cli==1.0.5", "mcp==1.30.0"], _setup_mcp_client_cli,  # mcp 2 renamed Tool.inputSchema
         lambda v, p: [str(v / "bin" / "llm"), "--no-confirmations", p],
         turn=lambda v, p, i: [str(v / "bin" / "llm"), "--no-confirmations", *(["c"] if i else []), p]),
    Peer("mcp-cli", "3.12.1", ["mcp-cli==0.20.1"], _setup_mcp_cli,
         lambda v, p: [str(v / "bin" / "mcp-cli"), "cmd", "--server", "search", "--provider", "openai",
                       "--model", "stub", "--prompt", p], prompt_marker="> ",
         interactive=lambda v: [str(v / "bin" / "mcp-cli"), "chat", "--server", "search", "--provider", "openai",
                                "--model", "stub"]),
    Peer("fast-agent", "3.13.0", ["fast-agent-mcp==0.10.48"], _setup_fast_agent,
         lambda v, p: [str(v / "bin" / "fast-agent"), "go", "--servers", "search", "--model", "generic.stub",
                       "--message", p], prompt_marker="> ",
         interactive=lambda v: [str(v / "bin" / "fast-agent"), "go", "--servers", "search", "--model", "generic.stub"]),
]


# -- measuring ------------------------------------------------------------------------------
def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _daemon_cpu(rundir: str) -> float:
    """CPU of the runs the pre-imported processes served (their reaped children, from /proc)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid_file in Path(rundir).glob("*.pid"):
        try:
            fields = Path(f"/proc/{int(pid_file.read_text())}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[13]) + int(fields[14])) / tick  # cutime, cstime
        except (OSError, ValueError, IndexError):
            pass
    return total


def one_shot(argv: list[str], env: dict, cwd: Path, rundir: str) -> tuple[float, float, int, bool]:
    """(wall s, CPU s, peak RSS KiB, answered?) of one run to its exit. CPU includes what the
    pre-imported processes spent on it (their reaped children)."""
    cpu0, d0 = _children_cpu(), _daemon_cpu(rundir)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - started
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        answered, errors = out.read().strip(), err.read()
    time.sleep(0.05)  # the daemons reap their served runs
    cpu = _children_cpu() - cpu0 + _daemon_cpu(rundir) - d0
    ok = p.returncode == 0 and bool(answered)
    if not ok:
        sys.stderr.write(f"  {Path(argv[0]).name} exit {p.returncode}: {errors.decode(errors='replace')[-300:]}\n")
    return wall, cpu, usage.ru_maxrss, ok


def time_to_prompt(argv: list[str], env: dict, cwd: Path, marker: str, timeout: float = 120) -> float | None:
    """Seconds until the prompt marker appears on a pseudo-terminal; the session is then ended."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execvpe(argv[0], argv, env)
    started, seen = time.perf_counter(), b""
    try:
        while time.perf_counter() - started < timeout:
            r, _, _ = select.select([fd], [], [], 0.5)
            if r:
                try:
                    seen += os.read(fd, 65536)
                except OSError:
                    return None
                if marker.encode() in seen:
                    return time.perf_counter() - started
        return None
    finally:
        os.kill(pid, 15)
        os.waitpid(pid, 0)
        os.close(fd)


def conversation(peer: Peer, venv: Path, env: dict, cwd: Path, llm: LLMStub, turns: int) -> tuple[list[float], dict]:
    """Per-turn seconds (line sent -> answer line read) and request chars at turns 10/25/50."""
    llm.clear()
    texts = [f"{i + 1}번째 질문입니다: 오늘 할 일 {i + 1}가지를 생각해 봤어요" for i in range(turns)]
    times: list[float] = []
    if peer.turn is not None:  # a process per turn
        for i, text in enumerate(texts):
            started = time.perf_counter()
            subprocess.run(peer.turn(venv, text, i), env=env, cwd=cwd, capture_output=True, timeout=300)
            times.append(time.perf_counter() - started)
    elif peer.interactive is not None:
        p = subprocess.Popen(peer.interactive(venv), env=env, cwd=cwd, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        assert p.stdin and p.stdout
        buf = b""
        for i, text in enumerate(texts):
            started = time.perf_counter()
            p.stdin.write((text + "\n").encode())
            p.stdin.flush()
            # the stub's answer echoes the message ("답변 N: <text>"; N counts every request, summaries too)
            want = f": {text}".encode()
            while want not in buf:
                r, _, _ = select.select([p.stdout], [], [], 60)
                if not r:
                    break
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    break
                buf += chunk
            times.append(time.perf_counter() - started)
            buf = buf[buf.find(want) + len(want):] if want in buf else b""
        p.stdin.close()
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
    sizes = {}
    for k in (10, 25, 50):
        if k <= turns:
            mine = [r for r in llm.requests if any(texts[k - 1] in str(m.get("content")) for m in r.get("messages", [])
                                                   if m.get("role") == "user")]
            sizes[k] = len(json.dumps(mine[0]["messages"], ensure_ascii=False)) if mine else None
    return times, sizes


# -- the run -------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--cpu-runs", type=int, default=5)
    ap.add_argument("--turns", type=int, default=50)
    ap.add_argument("--only", default="")
    ap.add_argument("--install-only", action="store_true")
    args = ap.parse_args()
    chosen = [p for p in PEERS if not args.only or p.name in args.only.split(",") or p.name == "mcp-chat"]
    broken: dict[str, str] = {}
    for peer in chosen:
        err = install(peer)
        if err:
            broken[peer.name] = err
    if args.install_only:
        print(json.dumps(broken or "installed"))
        return
    with tempfile.TemporaryDirectory(prefix="peers-") as tmp, LLMStub() as llm, NaverStub() as naver:
        rundir = Path(tmp) / "rt"
        rundir.mkdir(mode=0o700)
        naver_env = {"NAVER_CLIENT_ID": naver.client_id, "NAVER_CLIENT_SECRET": naver.client_secret,
                     "NAVER_API_BASE_URL": naver.base_url}
        ctx = {"base_url": llm.base_url, "rundir": str(rundir), "naver_env": naver_env,
               "server": [sys.executable, "-P", "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
                          "from server.__main__ import main; sys.exit(main())", "--transport", "stdio"],
               "server_env": {**naver_env, "MCP_CHAT_DAEMON": "0"}}  # every client spawns the same cold server
        envs, homes = {}, {}
        variants = [(p, mode) for p in chosen if p.name not in broken
                    for mode in (("warm", "cold") if p.name == "mcp-chat" else ("",))]
        for peer, mode in variants:
            key = f"{peer.name} {mode}".strip()
            home = Path(tmp) / key.replace(" ", "-")
            home.mkdir()
            homes[key] = home
            envs[key] = {"PATH": f"{venv_of(peer) / 'bin'}:{os.environ.get('PATH', '')}", "HOME": str(home),
                         "LANG": "C.UTF-8", "TERM": "xterm-256color", **peer.setup(home, ctx),
                         **({"MCP_CHAT_DAEMON": "0"} if mode == "cold" else {})}
        # warm-up: every client once (mcp-chat's first run starts its pre-imported processes)
        for peer, mode in variants:
            key = f"{peer.name} {mode}".strip()
            one_shot(peer.oneshot(venv_of(peer), PLAIN), envs[key], homes[key], str(rundir))
        deadline = time.monotonic() + 120
        while len(list(rundir.glob("*.sock"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.5)
        results: dict[str, dict[str, list]] = {f"{p.name} {m}".strip(): {"plain": [], "tool": [], "rss": []}
                                                for p, m in variants}
        for i in range(args.runs):
            for what, prompt in (("plain", PLAIN), ("tool", TOOL)):
                for peer, mode in variants:
                    key = f"{peer.name} {mode}".strip()
                    wall, cpu, rss, ok = one_shot(peer.oneshot(venv_of(peer), prompt), envs[key], homes[key], str(rundir))
                    results[key][what].append((wall, cpu if i < args.cpu_runs else None, ok))
                    if what == "tool":
                        results[key]["rss"].append(rss)
        prompts, convs = {}, {}
        for peer, mode in variants:
            key = f"{peer.name} {mode}".strip()
            if peer.interactive and peer.prompt_marker:
                prompts[key] = statistics.median([t for t in (time_to_prompt(peer.interactive(venv_of(peer)), envs[key],
                                                  homes[key], peer.prompt_marker) for _ in range(3)) if t is not None] or [float("nan")])
            if mode != "cold":
                try:
                    convs[key] = conversation(peer, venv_of(peer), envs[key], homes[key], llm, args.turns)
                except OSError as e:  # the client ended its session early
                    sys.stderr.write(f"  {key} conversation: {e}\n")
    report(results, prompts, convs, broken, args)


def _med(values: list) -> float:
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else float("nan")


def report(results: dict, prompts: dict, convs: dict, broken: dict, args: argparse.Namespace) -> None:
    load = os.getloadavg()
    print(f"{platform.python_implementation()} {platform.python_version()} · {os.cpu_count()} CPUs · load average "
          f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} · {args.runs} one-shot runs each (CPU of the first "
          f"{args.cpu_runs}), {args.turns}-turn conversation, interleaved\n")
    base = results.get("mcp-chat warm")
    print("| client | one-shot plain s (CPU s) | ratio | one-shot with a tool call s (CPU s) | ratio | to prompt s "
          "| per turn median / p90 ms | request chars at turn 10 / 25 / 50 | peak RSS MiB (one-shot, tool) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key, res in results.items():
        cells = []
        for what in ("plain", "tool"):
            wall = _med([w for w, _, ok in res[what] if ok])
            cpu = _med([c for _, c, ok in res[what] if ok])
            ref = _med([w for w, _, ok in base[what] if ok]) if base else float("nan")
            failed = sum(1 for *_, ok in res[what] if not ok)
            cells += [f"{wall:.2f} ({cpu:.2f})" + (f" [{failed} failed]" if failed else ""), f"{wall / ref:.2f}x"]
        to_prompt = f"{prompts[key]:.2f}" if key in prompts else "–"
        if key in convs:
            times, sizes = convs[key]
            ms = sorted(t * 1000 for t in times)
            turn = f"{statistics.median(ms):,.0f} / {ms[int(0.9 * (len(ms) - 1))]:,.0f}" if ms else "–"
            size = " / ".join(f"{sizes.get(k):,}" if sizes.get(k) else "–" for k in (10, 25, 50))
        else:
            turn, size = "–", "–"
        rss = f"{max(res['rss']) / 1024:.0f}" if res["rss"] else "–"
        print(f"| {key} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} | {to_prompt} | {turn} | {size} | {rss} |")
    for name, why in broken.items():
        print(f"| {name} | not measured: {why} | | | | | | | |")


if __name__ == "__main__":
    main()
