"""A terminal narrowed while an answer streams (tmux, which reflows its lines as most terminals
do): no fragment of the live region is left above the answer. Before: the region's lines, wider
than the new width, took more rows than rich moved up over, and the rows above stayed on screen
(or, pushed up by tmux, in its history): the start of the answer appeared twice. The answer pauses
(a model that stalls) while the terminal narrows twice: tmux reflows its screen at once but tells
the program the second width 250 ms later, and the region drawn or erased at the first width in
between left a fragment or erased a printed line (client/ui/live_answer.py Region.settle)."""

from __future__ import annotations

import collections
import re
import threading

import pytest

PARAGRAPHS = "\n\n".join(f"문단{i:02}: " + " ".join(f"낱말{i:02}{j:02}" for j in range(16)) for i in range(10))
CODE = "```\n" + "\n".join(f"줄{i:02} = " + " + ".join(f"값{i:02}{j:02}" for j in range(12)) for i in range(24)) + "\n```"
WORD = re.compile(r"(?:낱말|값)\d{4}|문단\d\d|줄\d\d")


@pytest.mark.parametrize("body,first,widths", [
    (PARAGRAPHS, "문단02", (70,)), (CODE, "줄04", (80, 50)), (PARAGRAPHS + "\n\n" + CODE, "문단04", (100, 60)),
], ids=["paragraphs", "code", "both-twice"])
def test_a_resize_while_an_answer_streams_leaves_no_fragment(tty, llm, body, first, widths):
    pane = tty("--thread", "resize", "--no-memory")
    pane.wait_prompt(1, 60)
    midway = threading.Event()
    llm.push({"text": body, "delay": 4, "midway": midway, "at": body.index(first) + 40})  # paused mid-answer
    pane.line("길게 답해줘")
    pane.wait_for(first, 60)  # streaming, not done
    last = WORD.findall(body)[-1]
    assert last not in pane.screen(), "the answer ended before the resize: nothing was tested"
    for width in widths:
        pane.tmux("resize-window", "-t", "chat", "-x", str(width))
    midway.set()
    screen = pane.wait_prompt(2, 120)
    seen = collections.Counter(WORD.findall(screen.split("❯ 길게 답해줘", 1)[1]))
    assert set(seen) == set(WORD.findall(body)), "part of the answer is missing"
    assert [w for w, n in seen.items() if n > 1] == [], screen
    pane.keys("C-d")
    assert pane.exit_status() == 0
