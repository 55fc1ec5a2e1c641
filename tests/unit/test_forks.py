"""Fork and rewind decisions (client/core/forks.py), pure: what a cut at turn N holds, and whose
memory is whose afterwards. Rows are transcripts as the store keeps them: (turn, message)."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from client.core.context.turns import SUMMARY_REQUEST, tool_pairs_intact
from client.core.forks import (
    COVERS, Child, Item, context_at, heir, heirs, mark_covers, rewind_watermark, rewound_items, tools_run,
    unfolded_heir,
)
from client.engine.store.codec import decode, encode

SYN = {"synthetic": True}


def turn(n: int) -> list[tuple[int, object]]:
    return [(n, HumanMessage(f"질문 {n}", id=f"u{n}")), (n, AIMessage(f"답 {n}", id=f"a{n}"))]


def tool_turn(n: int) -> list[tuple[int, object]]:
    call = AIMessage("", id=f"c{n}", tool_calls=[{"name": "web_search", "args": {"query": "q"}, "id": f"t{n}"}])
    return [(n, HumanMessage(f"검색 {n}", id=f"u{n}")), (n, call),
            (n, ToolMessage("결과", tool_call_id=f"t{n}", name="web_search", id=f"r{n}")), (n, AIMessage(f"답 {n}", id=f"a{n}"))]


def pair(t: int, text: str, covers: int | None, tag: str) -> list[tuple[int, object]]:
    kw = {**SYN, COVERS: covers} if covers is not None else SYN
    return [(t, HumanMessage(SUMMARY_REQUEST, id=f"p{tag}", additional_kwargs=SYN)),
            (t, AIMessage(text, id=f"s{tag}", additional_kwargs=kw))]


SYSTEM = [(0, SystemMessage("시스템", id="sys"))]


def ids(msgs) -> list[str]:
    return [m.id for m in msgs]


def test_without_a_summary_a_cut_holds_the_system_message_and_the_first_n_turns():
    rows = SYSTEM + turn(1) + turn(2) + turn(3)
    assert ids(context_at(rows, 2)) == ["sys", "u1", "a1", "u2", "a2"]
    assert ids(context_at(rows, 3)) == ids([m for _, m in rows])


def test_a_cut_holds_the_last_summary_made_by_then_and_the_turns_after_what_it_covers():
    # a summary of turns 1-2 made before turn 5 (recorded with turn 4), one of 1-4 made before turn 7
    rows = SYSTEM + turn(1) + turn(2) + turn(3) + turn(4) + pair(4, "요약 A", 2, "A") + turn(5) + turn(6) \
        + pair(6, "요약 B", 4, "B") + turn(7)
    assert ids(context_at(rows, 3)) == ["sys", "u1", "a1", "u2", "a2", "u3", "a3"]
    assert ids(context_at(rows, 4)) == ["sys", "pA", "sA", "u3", "a3", "u4", "a4"]  # what turn 5 was sent with
    assert ids(context_at(rows, 6)) == ["sys", "pB", "sB", "u5", "a5", "u6", "a6"]
    assert ids(context_at(rows, 7)) == ["sys", "pB", "sB", "u5", "a5", "u6", "a6", "u7", "a7"]
    held = context_at(rows, 6)
    assert COVERS not in held[2].additional_kwargs and held[2].additional_kwargs["synthetic"]  # as the context had it


def test_a_pair_stored_before_covers_existed_keeps_the_default_two_turns():
    rows = SYSTEM + turn(1) + turn(2) + turn(3) + turn(4) + pair(4, "요약", None, "L") + turn(5)
    assert ids(context_at(rows, 5)) == ["sys", "pL", "sL", "u3", "a3", "u4", "a4", "u5", "a5"]


def test_a_tampered_covers_value_is_clamped_to_what_the_pair_could_cover():
    rows = SYSTEM + turn(1) + turn(2) + pair(2, "요약", 10**9, "X") + turn(3)
    assert ids(context_at(rows, 3)) == ["sys", "pX", "sX", "u3", "a3"]
    rows = SYSTEM + turn(1) + pair(1, "요약", -5, "Y")
    assert ids(context_at(rows, 1)) == ["sys", "pY", "sY", "u1", "a1"]


def test_tool_pairs_are_carried_whole():
    rows = SYSTEM + turn(1) + tool_turn(2) + turn(3)
    held = context_at(rows, 2)
    assert ids(held) == ["sys", "u1", "a1", "u2", "c2", "r2", "a2"] and tool_pairs_intact(held)
    broken = [r for r in rows if r[1].id != "r2"]  # a result lost (an older client): the call is answered
    assert tool_pairs_intact(context_at(broken, 3))


def test_mark_covers_counts_the_recorded_turns_the_context_still_holds_verbatim():
    ctx = [m for _, m in SYSTEM + pair(4, "요약", None, "N") + turn(3) + turn(4)] + [HumanMessage("질문 5", id="u5")]
    known = {"sys", "u3", "a3", "u4", "a4"}
    assert mark_covers(ctx, known, 4) == {"sN": 2}
    assert mark_covers(ctx, known | {"sN"}, 4) == {}  # recorded once: never marked again
    assert mark_covers([m for _, m in SYSTEM + pair(4, "요약", None, "M")], {"sys"}, 4) == {"sM": 4}  # /compact, keep 0


def test_covers_survives_the_transcript_codec():
    ai = AIMessage("요약", id="s", additional_kwargs={**SYN, COVERS: 3})
    back = decode(encode(ai), "s")
    assert back.additional_kwargs == {"synthetic": True, COVERS: 3}
    assert COVERS not in decode(encode(AIMessage("x", additional_kwargs={COVERS: True}))).additional_kwargs  # a bool is no turn


def test_tools_run_names_each_tool_of_the_taken_turns_once():
    rows = SYSTEM + tool_turn(1) + turn(2) + tool_turn(3) + tool_turn(4)
    assert tools_run(rows, 2) == ["web_search"] and tools_run(rows, 4) == []
    assert tools_run(SYSTEM + tool_turn(1) + turn(2), 1) == []


def test_a_deleted_threads_items_pass_to_the_fork_that_holds_their_turns():
    kids = [Child("f3", 3), Child("f5", 5)]
    assert heir(kids, [1, 2], 6) == "f5"  # both hold them: the one holding most
    assert heir(kids, [4], 6) == "f5" and heir(kids, [6], 6) is None  # turn 6 is in no fork: gone with it
    assert heir(kids, [], 3) == "f5" and heir(kids, [], 6) is None  # no sources: any folded turn
    assert heir([], [1], 1) is None
    got = heirs(kids, [Item(1, (1,)), Item(2, (6,)), Item(3, (2, 5))], 6)
    assert got == {"f5": [1, 3]}  # each item once, item 2 goes with the thread


def test_unfolded_turns_of_a_deleted_thread_pass_to_one_fork():
    kids = [Child("f2", 2), Child("f4", 4)]
    assert unfolded_heir(kids, 1, 6) == "f4"
    assert unfolded_heir(kids, 6, 6) is None  # all folded already
    assert unfolded_heir(kids, 4, 6) is None  # what the forks hold is folded


def test_a_rewind_moves_the_items_only_the_taken_turns_gave():
    items = [Item(1, (1,)), Item(2, (4,)), Item(3, (2, 4)), Item(4, ())]
    assert rewound_items(items, 3) == [2]  # mixed and unsourced stay with the thread
    assert rewind_watermark(memory_turn=5, keep=3, turns=5) == 5  # folded: nothing left to fold
    assert rewind_watermark(memory_turn=1, keep=3, turns=5) == 3  # turns 4-5 are the new thread's to fold
    assert rewind_watermark(memory_turn=4, keep=3, turns=5) == 4
