"""Write (or check) client/engine/mcp/bundled_tools.json: the bundled search server's tools as its
own tools/list gives them over stdio, so the client offers them before that process is up (issue 48).

    python scripts/bundled_tools.py          # rewrite the file from the live server
    python scripts/bundled_tools.py --check  # exit 1 when the file and the live server differ

The client never imports `server/` (tests/unit/test_architecture.py); this file is the one copy of
the definitions it reads, and tests/e2e/test_known_tools.py fails when it drifts from the server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


async def live_tools() -> list[dict]:
    """tools/list of a fresh bundled server (stdio, no pre-imported process), as wire JSON."""
    from client.engine.mcp.bundled import dump
    from client.engine.mcp.server import ServerConn
    from client.engine.mcp.specs import bundled_spec

    for name in ("NAVER_CLIENT_ID", "NAVER_CLIENT_SECRET"):  # listing needs no real key
        os.environ.setdefault(name, "unused")
    os.environ["MCP_CHAT_DAEMON"] = "0"
    conn = ServerConn(bundled_spec(env=os.environ))
    try:
        if not await conn.start(60):
            raise SystemExit(f"the bundled server did not start: {conn.error}")
        return [dump(t) for t in conn.tools]
    finally:
        await conn.aclose()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    from client.engine.mcp.bundled import DATA

    text = json.dumps(asyncio.run(live_tools()), ensure_ascii=False, indent=1) + "\n"
    if args.check:
        same = DATA.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{DATA} differs from the live server: run scripts/bundled_tools.py")
        return 0 if same else 1
    DATA.write_text(text, encoding="utf-8")
    print(f"wrote {DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
