"""docs/terminal.md's demo screen is what the code draws now (it had gone stale: the status line,
the first turn's tokens and the /threads columns had all changed). Timings and dates aside."""

from __future__ import annotations

from tests.tty.capture_demo import PAGE, normalized, page_block, render


def test_the_demo_screen_in_the_docs_is_current():
    page = PAGE.read_text(encoding="utf-8")
    start, end = page_block(page)
    assert normalized(page[start:end]) == normalized(render()), (
        "docs/terminal.md's demo screen differs from what the client draws: run "
        "`python -m tests.tty.capture_demo --write` and review the change")
