"""The attacker is an MCP server whose tool answers with 50 MB (issue 37): the real client, piped.

Over stdio (Korean, the default) and streamable HTTP (--lang en): the turn goes on to the model's
answer, the user sees one notice line, the model's next request carries the note instead of the
text, and the client process's peak memory (VmHWM from /proc, read while the stand-in model holds
its answer back, after the result was handled) stays under 300 MB. Before the bound the SDK read
the whole line: 742 MB and minutes of CPU. A cold run: the measured process is the client itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, ChatRunner
from tests.stubs.big_result_server import HttpServer

pytestmark = pytest.mark.sqlite_only  # reading a tool result does not depend on the storage backend
BIG = ROOT / "tests" / "stubs" / "big_result_server.py"
PEAK_MB = 300
NOTE = "The result of this tool call was over 4 MB and was not read"
NOTICE = {"ko": "의 결과가 4 MB 를 넘어 읽지 않았습니다", "en": "was over 4 MB and was not read; the model was only told so"}


def vm_hwm_mb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def measured_chat(runner: ChatRunner, *args: str, input: str) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, peak MB) of one cold piped run, its VmHWM polled until it ends."""
    argv, env = runner.command(*args, env={"MCP_CHAT_DAEMON": "0"})
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=runner.tmp, env=env)
    peak = [0]

    def watch() -> None:
        while p.poll() is None:
            peak[0] = max(peak[0], vm_hwm_mb(p.pid))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    out, err = p.communicate(input.encode(), timeout=300)
    watcher.join()
    return p.returncode, out.decode(errors="replace"), err.decode(errors="replace"), peak[0]


def check(llm, code: int, out: str, err: str, peak: int, lang: str) -> None:
    assert code == 0, err
    assert 0 < peak < PEAK_MB, f"the client's peak RSS was {peak} MB"
    assert "다 읽지 못했다고 답합니다" in out  # the turn went on to the model's answer
    tools = [m["content"] for m in llm.chat_requests()[1]["messages"] if m["role"] == "tool"]
    assert len(tools) == 1 and NOTE in tools[0] and "lorem ipsum" not in tools[0], tools
    lines = [ln for ln in (out + err).splitlines() if NOTICE[lang] in ln]
    assert len(lines) == 1 and "big/big" in lines[0], out + err


def script(llm) -> None:
    # the answer is held back a second: the watcher reads VmHWM after the result was handled
    llm.push({"tool_calls": [("big", {"mb": 50})]}, {"text": "결과가 너무 커서 다 읽지 못했다고 답합니다.", "delay": 1.0})


@pytest.mark.slow  # 50 MB written and read: the main tier; tests/unit/test_bounded_reads.py is the fast proof
def test_a_50_mb_stdio_result_costs_what_a_small_one_does(tmp_path, llm, naver):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"big": {"command": sys.executable, "args": [str(BIG)]}}}))
    script(llm)
    code, out, err, peak = measured_chat(ChatRunner(tmp_path, llm, naver), "--new", "--no-memory",
                                         "--mcp-config", str(config), input="큰 결과를 가져와\n")
    check(llm, code, out, err, peak, "ko")


@pytest.mark.slow
def test_a_50_mb_http_result_costs_what_a_small_one_does(tmp_path, llm, naver):
    with HttpServer() as server:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"big": {"url": server.url}}}))
        script(llm)
        code, out, err, peak = measured_chat(ChatRunner(tmp_path, llm, naver), "--new", "--no-memory", "--lang", "en",
                                             "--mcp-config", str(config), input="fetch the big result\n")
    check(llm, code, out, err, peak, "en")
