"""Hostile text at the edges, in pipes: a server that echoes its URL's credential and escape
sequences, a model answer full of terminal escapes, exports a script reads back. (Terminals:
tests/tty/test_hygiene_tty.py; what reaches the database: tests/faults/test_secrets.py.)"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import pytest
from markdown_it import MarkdownIt

URL_SECRET = "LITERAL-QUERY-SECRET-77"
EVIL = "\x1b]0;PWNED\x07제목 \x1b]52;c;SGVsbG8=\x07클립 \x1b[2J화면 \x1bP1$rX\x1b\\ \u202eevil\u202c \u200b끝"


class _Echo(BaseHTTPRequestHandler):
    """An 'MCP server' that refuses every request, quoting the path it was asked for (with its
    query) and an escape sequence in its JSON-RPC error."""

    def do_POST(self) -> None:  # noqa: N802
        n = int(self.headers.get("Content-Length") or 0)
        req = json.loads(self.rfile.read(n) or b"{}")
        body = json.dumps({"jsonrpc": "2.0", "id": req.get("id", 0),
                           "error": {"code": -32600, "message": f"rejected {self.path} \x1b]0;PWNED\x07"}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a: object) -> None:
        pass


@pytest.fixture
def echo_server() -> Iterator[str]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}/mcp?api_key={URL_SECRET}&x=1"
    finally:
        srv.shutdown()
        srv.server_close()


def test_a_url_credential_never_shows_in_the_failure_line_or_servers(cli, echo_server):
    r = cli("--new", "--no-memory", "--debug", "--server-url", echo_server, input="/servers\n")
    assert r.code == 0, r.err
    both = r.out + r.err
    assert URL_SECRET not in both and "\x1b" not in both
    failed = [ln for ln in r.err.splitlines() if "연결하지 못했습니다" in ln]
    assert len(failed) == 1 and "mcp?api_key=***&x=1" in failed[0] and "rejected /mcp?api_key=***&x=1" in failed[0]
    assert "api_key=***&x=1 · 도구 0개" in r.out  # /servers


def test_escapes_in_an_answer_are_cleaned_live_and_kept_written_out_in_exports(cli, llm):
    llm.push({"text": f"```python\nprint(1)\n```\n{EVIL}\n<!-- never closed\n"})
    r = cli("--thread", "esc-1", "--no-memory", input="안녕\n")
    assert r.code == 0, r.err
    assert "\x1b" not in r.out + r.err and "\u202e" not in r.out and "\u200b" not in r.out
    assert "제목 클립 화면  evil 끝" in r.out  # the words stay, nothing that acts or hides

    md = cli.sub("export", "esc-1")  # a pipe: the text is kept, its controls written out
    assert md.code == 0, md.err
    assert "\x1b" not in md.out and "\x07" not in md.out
    assert "\\x1b]0;PWNED\\x07제목 \\x1b]52;c;SGVsbG8=\\x07클립" in md.out
    assert "\u202eevil\u202c \u200b끝" in md.out  # bidi and zero-width kept in a file (not a terminal)
    tokens = MarkdownIt("commonmark").parse(md.out)  # valid CommonMark, whatever the answer starts with
    headings = [tokens[i + 1].content for i, tk in enumerate(tokens) if tk.type == "heading_open"]
    assert headings[-3:] == ["1번째 턴", "user", "assistant"]
    fences = [tk for tk in tokens if tk.type == "fence"]
    assert [f.info for f in fences][-1:] == ["python"] and fences[-1].content == "print(1)\n"
    assert "**assistant**: ```" not in md.out and "\n```python\nprint(1)\n```\n" in md.out
    assert "\\<!-- never closed" in md.out  # an HTML comment that never ends would swallow the rest

    js = cli.sub("export", "esc-1", "--format", "json")  # JSON is JSON: the same text, no raw control byte
    assert js.code == 0, js.err
    assert "\x1b" not in js.out and "\u202e" not in js.out and "\u200b" not in js.out
    assert "\\u202e" in js.out and "\\u001b]0;PWNED" in js.out
    answer = json.loads(js.out)["messages"][-1]["content"]
    assert EVIL in answer


def test_export_and_delete_take_a_unique_id_prefix(cli):
    for tid in ("proj-alpha-1", "proj-alpha-2", "other-9"):
        assert cli("--thread", tid, "--no-memory", input="안녕\n").code == 0
    r = cli.sub("export", "proj-al")
    assert r.code == 2 and r.out == ""
    line = r.error_line()
    assert "proj-al" in line and "proj-alpha-1" in line and "proj-alpha-2" in line
    r = cli.sub("export", "oth", "--format", "json")
    assert r.code == 0 and json.loads(r.out)["thread_id"] == "other-9"
    r = cli.sub("delete", "proj-alpha-")
    assert r.code == 2 and "proj-alpha-1" in r.error_line()
    r = cli.sub("delete", "proj-alpha-2")
    assert r.code == 0 and "proj-alpha-2" in r.out
    r = cli.sub("delete", "proj-a")  # unique now
    assert r.code == 0 and "proj-alpha-1" in r.out
    assert cli.sub("export", "zzz").code == 1
    assert [ln.split("\t")[0] for ln in cli.sub("threads").out.splitlines()] == ["other-9"]
