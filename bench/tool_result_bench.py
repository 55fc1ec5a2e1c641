"""What a big tool result costs the client: the SDK's readers against ours (issue 37).

    python bench/tool_result_bench.py [--sizes 1,10,50] [--transports stdio,http]

One turn of the real client stack in-process (agent, checkpointer, MCP session, the recording
model stub as the model): the model calls `big(mb)` on tests/stubs/big_result_server.py, which
streams a text result of that many MiB without holding it, then answers. Each case runs in a
fresh child process, so its peak RSS (VmHWM) is its own; "before" is the same child with the
MCP SDK's own transports put back (`stdio_client`, an httpx2 client without our response
hook), "after" is the code as it is. Printed: wall time and CPU time of the turn, the child's
peak RSS, and its RSS peak before the turn (imports, the session).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import ROOT, run_turn  # noqa: E402

BIG = ROOT / "tests" / "stubs" / "big_result_server.py"


def vm_hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def sdk_transports() -> None:
    """Put the SDK's own readers back: the client as it was before the bound."""
    from mcp.client.stdio import stdio_client

    import client.engine.mcp.server as server

    async def no_hook(response: object) -> None:
        return None

    server.bounded_stdio_client = lambda params, errlog: stdio_client(params, errlog=errlog)  # type: ignore[assignment]
    server.bounded = lambda *a, **k: no_hook  # type: ignore[assignment]


async def child(mode: str, mb: float, transport: str, url: str, llm_url: str) -> dict:
    from client.core.config import Settings
    from client.engine.build import build_session
    from client.engine.mcp.hub import ToolHub
    from client.engine.mcp.specs import ServerSpec
    from client.engine.store import open_store

    if mode == "before":
        sdk_transports()
    spec = ServerSpec("big", "stdio", command=sys.executable, args=[str(BIG)]) if transport == "stdio" \
        else ServerSpec("big", "http", url=url)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(db=str(Path(tmp) / "chat.db"), api_key="bench", base_url=llm_url, model="stub", memory=False,
                            max_input_tokens=123_904)  # HCX-005's budget
        store = await open_store(settings.db)
        hub = ToolHub([spec])
        await hub.fleet.connect()
        assert hub.fleet.error is None, hub.fleet.error
        try:
            session = build_session(settings, store, hub.tools)
            await session.open(None)
            idle = vm_hwm_mb()
            wall, cpu = time.perf_counter(), time.process_time()
            await run_turn(session, f"{mb} MB 결과를 가져와")
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        finally:
            await hub.fleet.aclose()
            await store.close()
    return {"wall": wall, "cpu": cpu, "peak": vm_hwm_mb(), "idle": idle}


def run_case(mode: str, mb: float, transport: str, url: str, llm) -> dict:  # noqa: ANN001
    llm.push({"tool_calls": [("big", {"mb": mb})]}, {"text": "받았습니다."})
    before = len(llm.requests)
    p = subprocess.run([sys.executable, __file__, "--child", mode, str(mb), transport, url, llm.base_url],
                       capture_output=True, text=True, timeout=1800, cwd=ROOT)
    if p.returncode != 0:
        raise SystemExit(f"{mode} {mb} MB {transport} failed:\n{p.stderr[-2000:]}")
    out = json.loads(p.stdout.strip().splitlines()[-1])
    tool = [m["content"] for r in llm.requests[before:] for m in r.get("messages", []) if m.get("role") == "tool"]
    out["model got"] = f"{len(tool[-1]):,} chars" + (" (the note)" if tool and "was not read" in tool[-1] else "")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,10,50")
    ap.add_argument("--transports", default="stdio,http")
    ap.add_argument("--child", nargs=5, metavar=("MODE", "MB", "TRANSPORT", "URL", "LLM_URL"))
    a = ap.parse_args()
    if a.child:
        mode, mb, transport, url, llm_url = a.child
        print(json.dumps(asyncio.run(child(mode, float(mb), transport, url, llm_url))))
        return
    from tests.stubs.llm_stub import LLMStub

    server = subprocess.Popen([sys.executable, str(BIG), "--http"], stdout=subprocess.PIPE, text=True)
    try:
        url = (server.stdout.readline() if server.stdout else "").strip()
        with LLMStub() as llm:
            print("| transport | result | before: wall | CPU | peak RSS | after: wall | CPU | peak RSS | the model got (after) |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
            idle = []
            for transport in a.transports.split(","):
                for mb in (float(x) for x in a.sizes.split(",")):
                    b, f = (run_case(m, mb, transport, url, llm) for m in ("before", "after"))
                    idle += [b["idle"], f["idle"]]
                    print(f"| {transport} | {mb:g} MB | {b['wall']:.1f} s | {b['cpu']:.1f} s | {b['peak']:.0f} MB "
                          f"| {f['wall']:.2f} s | {f['cpu']:.2f} s | {f['peak']:.0f} MB | {f['model got']} |", flush=True)
            print(f"\nRSS peak of a child before its turn (imports, session): {min(idle):.0f}-{max(idle):.0f} MB")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
