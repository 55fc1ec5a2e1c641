#!/usr/bin/env python3
"""Prepare the local model once: build (or reuse) llama-server, fetch and verify the weights.

    python scripts/setup_local_model.py            # prepare; a second run only checks (seconds)
    python scripts/setup_local_model.py --check    # exit 0 when ready, 1 when setup is needed
    python scripts/setup_local_model.py --bench    # prepare, start, time start-up and generation

Everything goes to the user cache (`$MCP_CHAT_CACHE`, else `$XDG_CACHE_HOME/mcp-chat`, else
`~/.cache/mcp-chat`), outside the clone, so CI on the same machine reuses it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from client.engine.local import SetupError, prepare, runtime_ready  # noqa: E402
from client.engine.local.build import build_server  # noqa: E402
from client.engine.local.spec import LLAMA_CPP_PYTHON_VERSION, QWEN_CODER_15B, server_dir  # noqa: E402
from client.engine.local.weights import fetch_weights  # noqa: E402
from client.ui import i18n, local_setup  # noqa: E402
from client.ui.env_settings import dirs  # noqa: E402

CACHE = dirs().cache  # $MCP_CHAT_CACHE, else $XDG_CACHE_HOME/mcp-chat, else ~/.cache/mcp-chat


async def bench(threads: int | None) -> dict[str, float]:
    server = prepare(CACHE, start=True, threads=threads)
    try:
        ready = await server.wait_ready()
        body = {"model": QWEN_CODER_15B.name, "temperature": 0, "max_tokens": 128,
                "messages": [{"role": "user", "content": "Write a Python function that reverses a string, with a docstring."}]}
        async with server.client(timeout=300) as client:  # its unix socket
            started = time.monotonic()
            r = await client.post("/v1/chat/completions", json=body)
            total = time.monotonic() - started
        timings = r.json().get("timings", {})
        return {"ready_s": round(ready, 2), "request_s": round(total, 2),
                "prompt_tokens_per_s": round(timings.get("prompt_per_second", 0.0), 1),
                "gen_tokens_per_s": round(timings.get("predicted_per_second", 0.0), 1),
                "gen_tokens": timings.get("predicted_n", 0)}
    finally:
        server.stop()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="only report whether setup is needed")
    p.add_argument("--force", action="store_true", help="rebuild the server and re-fetch the weights")
    p.add_argument("--bench", action="store_true", help="also start the server and time a generation")
    p.add_argument("--threads", type=int, help="llama-server threads for --bench (default: its own choice)")
    args = p.parse_args()
    i18n.set_lang(os.environ.get("MCP_CHAT_LANG", "").strip() or "ko")
    report = local_setup.SetupView()  # the setup's notes and progress on stderr
    if args.check:
        ready = runtime_ready(CACHE)
        print(f"local model {'ready' if ready else 'not prepared'}: {CACHE}")
        return 0 if ready else 1
    started = time.monotonic()
    try:
        build_server(CACHE, force=args.force, report=report)
        fetch_weights(CACHE, force=args.force, report=report)
        figures: dict[str, object] = {"setup_s": round(time.monotonic() - started, 1)}
        if args.bench:
            figures.update(asyncio.run(bench(args.threads)))
    except SetupError as e:
        print(f"setup failed: {i18n.t(e.key, **e.fmt)}", file=sys.stderr)
        return 1
    build = json.loads((server_dir(CACHE) / "build.json").read_text())
    figures.update({"llama_cpp_python": LLAMA_CPP_PYTHON_VERSION, "llama_cpp_commit": build.get("llama_cpp_commit"),
                    "build_s": build.get("seconds"), "cache": str(CACHE), "weights": QWEN_CODER_15B.source})
    print(json.dumps(figures, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
