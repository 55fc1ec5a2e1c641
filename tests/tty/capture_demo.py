"""The terminal demo in docs/terminal.md ("대화 화면"), rendered from the code: the real client at
120x40 in tmux against the model and Naver stubs (a question, a tool turn, a Markdown answer,
/tokens, /threads, then Ctrl-D), the pane's text as it is.

    python -m tests.tty.capture_demo           print the block
    python -m tests.tty.capture_demo --write   put it into docs/terminal.md

tests/tty/test_demo_screen.py renders it again and fails when the page differs (timings and
dates aside), so the page cannot go stale.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from tests.conftest import ChatRunner
from tests.stubs.llm_stub import LLMStub
from tests.stubs.naver_stub import NaverStub
from tests.tty.conftest import Pane

PAGE = Path(__file__).resolve().parents[2] / "docs" / "terminal.md"
SECTION = "## 대화 화면"
ANSWER = ("서울 강남역 근처 맛집을 정리했습니다.\n\n| 이름 | 종류 | 평점 |\n|---|---|---|\n| 가게 A | 한식 | 4.5 |\n"
          "| 가게 B | 일식 | 4.2 |\n\n- **가게 A**: 점심 특선이 있습니다.\n- **가게 B**: 예약을 권합니다.\n\n"
          "```python\nprint('맛있게 드세요')\n```\n")
VOLATILE = ((re.compile(r"\b\d+\.\ds\b"), "0.0s"), (re.compile(r"\b\d{4}-\d\d-\d\d \d\d:\d\d\b"), "2026-01-01 00:00"))


def render() -> str:
    """The demo as a ```text block."""
    with tempfile.TemporaryDirectory() as tmp, LLMStub() as llm, NaverStub() as naver:
        runner = ChatRunner(Path(tmp), llm, naver)
        args = ["--thread", "demo", "--no-memory"]
        # --require-tools: the search server is up before the prompt, so the first question carries its
        # tools however busy the machine is (the screen is the same; the token counts depend on it)
        pane = Pane(Path(tmp), {**runner.env, "XDG_DATA_HOME": f"{tmp}/data"},
                    [sys.executable, "-m", "client", *args, "--require-tools", "--db", runner.db],
                    shown="mcp-chat " + " ".join(args))
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
    return "```text\n" + text + "\n```"


def page_block(page: str) -> tuple[int, int]:
    """Where the demo's block stands in the page: (start, end) of its ```text ... ``` lines."""
    start = page.index("```text\n", page.index(SECTION))
    return start, page.index("\n```", start + 8) + 4


def normalized(block: str) -> str:
    for pattern, fixed in VOLATILE:
        block = pattern.sub(fixed, block)
    return block


def main() -> None:
    block = render()
    if "--write" not in sys.argv[1:]:
        print(block)
        return
    page = PAGE.read_text(encoding="utf-8")
    start, end = page_block(page)
    PAGE.write_text(page[:start] + block + page[end:], encoding="utf-8")
    print(f"{PAGE}: updated", file=sys.stderr)


if __name__ == "__main__":
    main()
