"""An MCP server whose tool answers with a result of any size, written by hand so that the server
itself stays small (the bytes are streamed, never held): the attacker of issue 37's unbounded read.

    python tests/stubs/big_result_server.py [--id-last] [--log FILE]        # stdio
    python tests/stubs/big_result_server.py --http [--sse|--legacy-sse] [--id-last]  # HTTP, prints its URL

Tools (readOnlyHint, so a piped client runs them): `big(mb)` returns about `mb` MB of text
(JSON-RPC id first, as the Python SDK writes it, or last with --id-last, as the TypeScript SDK
does); `small()` returns "small ok". The 2025 handshake only (`server/discover` is not known).
Each start appends "start <pid>" to --log. In-process: `HttpServer(sse=..., id_last=...)`.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator

CHUNK = 64 * 1024
FILLER = (b"lorem ipsum dolor sit amet 0123456789 " * 1800)[:CHUNK - 2] + b"\\n"  # JSON text, 64 KiB per piece
TOOLS = [
    {"name": "big", "description": "Returns about mb megabytes of text.", "annotations": {"readOnlyHint": True},
     "inputSchema": {"type": "object", "properties": {"mb": {"type": "number"}}, "required": ["mb"]}},
    {"name": "small", "description": "Returns a short text.", "annotations": {"readOnlyHint": True},
     "inputSchema": {"type": "object", "properties": {}}},
]


def _dump(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def answer(message: dict, id_last: bool = False) -> Iterator[bytes] | None:
    """The pieces of the reply to one message (no newline), or None for a notification."""
    if "id" not in message or "method" not in message:
        return None
    rid, method, params = message["id"], message["method"], message.get("params") or {}
    if method == "initialize":
        result = {"protocolVersion": params.get("protocolVersion", "2025-06-18"), "capabilities": {"tools": {}},
                  "serverInfo": {"name": "big", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "ping":
        result = {}
    elif method == "tools/call" and params.get("name") == "small":
        result = {"content": [{"type": "text", "text": "small ok"}], "isError": False}
    elif method == "tools/call" and params.get("name") == "big":
        return _big(rid, float((params.get("arguments") or {}).get("mb", 1)), id_last)
    else:
        return iter([_dump({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no {method}"}})])
    return iter([_dump({"jsonrpc": "2.0", "id": rid, "result": result})])


def _big(rid: Any, mb: float, id_last: bool) -> Iterator[bytes]:
    head = b'{"result":{"content":[{"type":"text","text":"' if id_last else \
        b'{"jsonrpc":"2.0","id":' + _dump(rid) + b',"result":{"content":[{"type":"text","text":"'
    yield head
    for _ in range(max(1, int(mb * 1024 * 1024 / CHUNK))):
        yield FILLER
    yield b'"}],"isError":false},"jsonrpc":"2.0","id":' + _dump(rid) + b"}" if id_last else b'"}],"isError":false}}'


def run_stdio(id_last: bool) -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        pieces = answer(json.loads(line), id_last)
        if pieces is None:
            continue
        for piece in pieces:
            out.write(piece)
        out.write(b"\n")
        out.flush()


class HttpServer:
    """Streamable HTTP on 127.0.0.1 (port 0), in a thread: JSON bodies, or one SSE event per reply;
    `legacy`: the 2024 SSE transport (GET /mcp: the event stream, POST /messages: 202)."""

    def __init__(self, sse: bool = False, id_last: bool = False, legacy: bool = False) -> None:
        self.calls: list[str] = []
        self.replies: queue.Queue[Iterator[bytes] | None] = queue.Queue()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:  # the 2024 SSE transport's stream; streamable HTTP has none
                if not legacy:
                    self._plain(405)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self._chunk(b"event: endpoint\ndata: /messages\n\n")
                try:
                    while (pieces := outer.replies.get()) is not None:
                        self._chunk(b"event: message\ndata: ")
                        for piece in pieces:
                            self._chunk(piece)
                        self._chunk(b"\n\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True

            def do_DELETE(self) -> None:
                self._plain(200)

            def do_POST(self) -> None:
                message = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                outer.calls.append(str(message.get("method")))
                pieces = answer(message, id_last)
                if pieces is None or legacy:  # the 2024 SSE transport answers on the GET stream
                    if pieces is not None:
                        outer.replies.put(pieces)
                    self._plain(202)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream" if sse else "application/json")
                self.send_header("Mcp-Session-Id", "s1")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                write: Callable[[bytes], None] = self._chunk
                try:
                    if sse:
                        write(b"event: message\ndata: ")
                    for piece in pieces:
                        write(piece)
                    write(b"\n\n" if sse else b"")
                    self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):  # the client stopped reading: as it should
                    self.close_connection = True

            def _chunk(self, data: bytes) -> None:
                if data:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

            def _plain(self, code: int) -> None:
                self.send_response(code)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = _Quiet(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/mcp"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "HttpServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.replies.put(None)
        self.server.shutdown()
        self.server.server_close()


class _Quiet(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:  # a client that hung up early
        pass


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--http", action="store_true")
    ap.add_argument("--sse", action="store_true")
    ap.add_argument("--legacy-sse", action="store_true")
    ap.add_argument("--id-last", action="store_true")
    ap.add_argument("--log")
    args = ap.parse_args()
    if args.log:
        with open(args.log, "a") as f:
            f.write(f"start {os.getpid()}\n")
    if not args.http:
        run_stdio(args.id_last)
        return
    with HttpServer(args.sse, args.id_last, args.legacy_sse) as server:
        print(server.url, flush=True)
        server.thread.join()


if __name__ == "__main__":
    main()
