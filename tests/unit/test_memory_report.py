"""The memory lines a chat prints (client/ui/turn_view.py show_memory): a pass at exit that finds
nothing new after an earlier pass of the same run kept something says nothing, instead of
"nothing of this session is kept"."""

from __future__ import annotations

import io

from client.engine.memory.manager import MemoryUpdate
from client.ui import i18n
from client.ui.render import Renderer
from client.ui.turn_view import show_memory


def lines(*reports: list[MemoryUpdate]) -> list[str]:
    i18n.set_lang("ko")
    out = io.StringIO()
    r, kept = Renderer(out, out), False
    for ups in reports:
        kept = show_memory(r, [("t", up) for up in ups], [], kept)
    return [ln for ln in out.getvalue().splitlines() if ln.strip()]


def test_a_later_pass_with_nothing_new_is_silent_once_something_was_kept():
    got = lines([MemoryUpdate(added=1, candidates=1)], [MemoryUpdate(candidates=0)])
    assert got == ["장기 기억: 후보 1개 중 1개 추가, 0개 갱신"]


def test_nothing_kept_at_all_is_said_plainly():
    assert lines([MemoryUpdate(candidates=2)]) == ["장기 기억: 이번 세션에서 남길 항목이 없습니다 (후보 2개, 저장 0개)."]


def test_each_pass_that_keeps_something_is_reported():
    got = lines([MemoryUpdate(added=1, candidates=1)], [MemoryUpdate(updated=1, candidates=1)])
    assert got == ["장기 기억: 후보 1개 중 1개 추가, 0개 갱신", "장기 기억: 후보 1개 중 0개 추가, 1개 갱신"]
