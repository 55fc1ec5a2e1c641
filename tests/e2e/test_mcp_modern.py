"""mcp-chat against a server that speaks only 2026-07-28 (tests/stubs/modern_server.py, the SDK 2.x
MCPServer), over stdio and streamable HTTP: chosen automatically, its questions (a form, the model,
the roots) come back as InputRequiredResults and get the same answers as a 2025 server's requests
(--yes, or refused in a pipe), a list change told on subscriptions/listen reaches the next turn,
/servers names the revision. Assertions are on what the model stub received and the server did.
The command line in this process (tests/cli.py); the servers are real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, thread_id_of
from tests.e2e.test_mcp_everything import call_line, everything_js, tool_results, write_config  # noqa: F401
from tests.server.helpers import reported_port, stop_process

pytestmark = pytest.mark.sqlite_only
STUB = ROOT / "tests" / "stubs" / "modern_server.py"


class ModernHTTP:
    def __init__(self, tmp: Path) -> None:
        self.ran = tmp / "http-ran.log"
        self.log_path = tmp / "http-server.log"
        with self.log_path.open("w") as log:
            self.proc = subprocess.Popen([sys.executable, str(STUB), str(self.ran), "--http"], stdout=log,
                                         stderr=log, stdin=subprocess.DEVNULL)
        try:
            self.url = f"http://127.0.0.1:{reported_port(self.log_path, self.proc)}/mcp"
        except BaseException:
            stop_process(self.proc)
            raise


@pytest.fixture
def modern_http(tmp_path: Path) -> Iterator[ModernHTTP]:
    server = ModernHTTP(tmp_path)
    yield server
    stop_process(server.proc)


def _entry(transport: str, tmp: Path, http: ModernHTTP | None) -> tuple[dict, Path]:
    if transport == "http":
        assert http is not None
        return {"url": http.url, "alwaysAllow": ["*"]}, http.ran
    ran = tmp / "stdio-ran.log"
    return {"command": sys.executable, "args": [str(STUB), str(ran)], "alwaysAllow": ["*"]}, ran


def _run(cli, tmp_path, servers: dict, lines: list[str], *extra: str):
    config = write_config(tmp_path, servers)
    return cli("--new", "--mcp-config", config, "--context", "none", "--no-memory", *extra,
                input="\n".join(lines) + "\n", timeout=90)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_with_yes_its_questions_are_answered_by_the_same_rules(cli, llm, tmp_path, transport, request):
    http = request.getfixturevalue("modern_http") if transport == "http" else None
    entry, ran = _entry(transport, tmp_path, http)
    root = tmp_path / "shared-root"
    root.mkdir()
    r = _run(cli, tmp_path, {"modern": entry},
             [call_line("pick_color", {}), call_line("summarize", {"text": "a long text about tea"}),
              call_line("my_roots", {}), "/servers"], "--yes", "--root", str(root))
    assert r.code == 0, r.err
    results = tool_results(llm.chat_requests())
    assert results["pick_color"] == ["picked blue"]  # --yes: the form's default
    assert results["summarize"][0].startswith("summary: ")
    assert results["my_roots"] == [f"roots: {root.resolve().as_uri()}"]  # only what the user offered
    sampled = [q for q in llm.requests if "Summarize: a long text about tea" in str(q.get("messages"))
               and not q.get("tools")]
    assert len(sampled) == 1  # the chat model, without tools, once
    both = r.out + r.err
    assert "[입력 요청] 서버 'modern'" in both and "[샘플링] 서버 'modern' 요청: " in both
    assert "modern: 연결됨 · " + transport in r.out and "MCP 2026-07-28" in r.out  # /servers
    assert ran.read_text().splitlines() == ["picked blue", f"summary: {results['summarize'][0][9:]}",
                                            f"roots: {root.resolve().as_uri()}"]
    exported = json.loads(cli.sub("export", thread_id_of(r.err), "--format", "json").out)
    rows = [m["sampling"][0] for m in exported["messages"] if m.get("sampling")]
    assert [(x["server"], x["decision"]) for x in rows] == [("modern", "allow:yes")]


def test_in_a_pipe_without_yes_its_questions_are_refused(cli, llm, tmp_path):
    entry, ran = _entry("stdio", tmp_path, None)
    r = _run(cli, tmp_path, {"modern": entry},
             [call_line("pick_color", {}), call_line("summarize", {"text": "never-sampled-61"}), call_line("my_roots", {})])
    assert r.code == 0, r.err
    results = tool_results(llm.chat_requests())
    assert "decline" in results["pick_color"][0]  # the turn went on with an error result
    assert "rejected" in results["summarize"][0].lower()
    assert results["my_roots"] == ["roots: none"]  # no --root: nothing offered
    assert not [q for q in llm.requests if "never-sampled-61" in str(q.get("messages")) and not q.get("tools")]
    assert ran.read_text().splitlines() == ["roots: none"]  # the other two never ran
    both = r.out + r.err
    assert "[입력 요청] 서버 'modern'의 입력 요청을 거절했습니다" in both
    assert "[샘플링] 서버 'modern'의 모델 요청을 거절했습니다." in both


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_tool_added_later_is_offered_on_the_next_turn(cli, llm, tmp_path, transport, request):
    """Told on subscriptions/listen: the listing (fresh for an hour) is fetched again at once."""
    http = request.getfixturevalue("modern_http") if transport == "http" else None
    entry, ran = _entry(transport, tmp_path, http)
    r = _run(cli, tmp_path, {"modern": entry}, [call_line("grow", {}), call_line("grown", {})])
    assert r.code == 0, r.err
    offered = [{t["function"]["name"] for t in q.get("tools") or []} for q in llm.chat_requests()]
    assert "grown" not in offered[0] and "grown" in offered[-1]
    assert ran.read_text().splitlines() == ["grew", "grown ran"]


@pytest.mark.parametrize("ttl, seen", [("0", True), ("3600000", False)])
def test_without_a_stream_the_listing_is_kept_for_its_ttl(cli, llm, tmp_path, ttl, seen):
    entry, ran = _entry("stdio", tmp_path, None)
    entry["args"] += ["--no-listen", "--ttl", ttl]
    r = _run(cli, tmp_path, {"modern": entry}, [call_line("grow", {}), call_line("echo", {"text": "x"})])
    assert r.code == 0, r.err
    offered = [{t["function"]["name"] for t in q.get("tools") or []} for q in llm.chat_requests()]
    assert ("grown" in offered[-1]) is seen  # ttl 0: listed again before the turn; an hour: the kept list
    assert ran.read_text().splitlines() == ["grew", "echo x"]


def test_both_revisions_side_by_side(cli, llm, tmp_path, everything_js):
    modern, _ = _entry("stdio", tmp_path, None)
    r = _run(cli, tmp_path, {"modern": modern, "everything": {"command": "node", "args": [everything_js, "stdio"]},
                              "old": {**modern, "protocol": "legacy"}}, ["/servers"])
    assert r.code == 0
    assert "MCP 2026-07-28" in r.out and "MCP 2025-11-25" in r.out
    # pinned to the 2025 handshake, a server that speaks only 2026-07-28 is one clear line, the rest go on
    assert "MCP 서버 'old'에 연결하지 못했습니다" in r.err and "2026-07-28" in r.err
