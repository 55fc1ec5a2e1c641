"""A stdio MCP server (2025 handshake, raw JSON-RPC) that serves tools exactly as a JSON file gives
them, inputSchema and all, bytes no SDK would rewrite: `python raw_tools_server.py TOOLS.json LOG`.

A call of any tool appends `NAME {arguments}` to LOG and answers "ran NAME".
"""

from __future__ import annotations

import json
import sys

TOOLS, LOG = json.loads(open(sys.argv[1], encoding="utf-8").read()), sys.argv[2]


def answer(msg: dict) -> dict | None:
    method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
    if rid is None:
        return None  # a notification
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "raw-tools", "version": "1.0"}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(f"{params.get('name')} {json.dumps(params.get('arguments') or {}, sort_keys=True)}\n")
        result = {"content": [{"type": "text", "text": f"ran {params.get('name')}"}]}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


for line in sys.stdin:
    if line.strip():
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
