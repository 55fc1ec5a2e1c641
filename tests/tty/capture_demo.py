"""Print a captured terminal session (tmux pane text): the block in docs/terminal.md.

    python -m tests.tty.capture_demo

Runs the real client at 120x40 against the model and Naver stubs: a question, a tool turn,
a Markdown answer, /tokens, /threads, then Ctrl-D.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.conftest import ChatRunner
from tests.stubs.llm_stub import LLMStub
from tests.stubs.naver_stub import NaverStub
from tests.tty.conftest import Pane

ANSWER = ("서울 강남역 근처 맛집을 정리했습니다.\n\n| 이름 | 종류 | 평점 |\n|---|---|---|\n| 가게 A | 한식 | 4.5 |\n"
          "| 가게 B | 일식 | 4.2 |\n\n- **가게 A**: 점심 특선이 있습니다.\n- **가게 B**: 예약을 권합니다.\n\n"
          "```python\nprint('맛있게 드세요')\n```\n")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, LLMStub() as llm, NaverStub() as naver:
        runner = ChatRunner(Path(tmp), llm, naver)
        args = ["--thread", "demo", "--no-memory"]
        pane = Pane(Path(tmp), {**runner.env, "XDG_DATA_HOME": f"{tmp}/data"},
                    [sys.executable, "-m", "client", *args, "--db", runner.db], shown="mcp-chat " + " ".join(args))
        try:
            pane.wait_prompt(1, 60)
            for line, reply in (("안녕하세요", None), ("강남역 맛집 검색해줘", None), ("표로 정리해줘", ANSWER),
                                ("/tokens", None), ("/threads", None)):
                if reply:
                    llm.push({"text": reply})
                n = pane.prompts()
                pane.line(line)
                pane.wait_prompt(n + 1)
            pane.keys("C-d")
            pane.exit_status()
            text = pane.screen()
        finally:
            pane.close()
    text = text.split("\nPane is dead")[0].rstrip()
    print("```text\n" + text + "\n```")


if __name__ == "__main__":
    main()
