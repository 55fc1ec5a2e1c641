"""bench/locomo.py's count of committed empty or fallback summaries (issue 39: it must be 0): a
summary pair with no line the model wrote counts, whatever session headers it carries."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage

from bench.locomo import committed_bad_summaries
from client.core.context.turns import summary_pair


def rows(*summaries: str) -> list:
    out = [(1, HumanMessage(content="[Session 1 · 1:56 pm on 8 May, 2023] Hi Ben!")), (1, AIMessage(content="Hey Ada!"))]
    for i, s in enumerate(summaries):
        out += [(2 + i, m) for m in summary_pair(s)]
    return out


HEADER = "[Session 1 · 1:56 pm on 8 May, 2023]"
NOTE = '- Ada said: "I joined a chess club yesterday (7 May 2023)."'
MODEL = "- Ada joined a chess club on 7 May 2023."


def test_a_header_and_notes_without_a_model_line_is_a_fallback():
    assert committed_bad_summaries(rows(f"{HEADER}\n{NOTE}")) == 1
    two = f"{HEADER}\n{NOTE}\n\n[Session 2 · 8:00 pm on 20 May, 2023]\n- Ben said: \"I built a canoe in 2022.\""
    assert committed_bad_summaries(rows(two)) == 1


def test_empty_and_header_only_summaries_count():
    assert committed_bad_summaries(rows("")) == 1
    assert committed_bad_summaries(rows("  \n ")) == 1
    assert committed_bad_summaries(rows(HEADER)) == 1
    assert committed_bad_summaries(rows("[세션 1 · 2024년 3월 3일]\n- 서준의 말: \"강아지 이름은 콩이야.\"")) == 1


def test_outdated_notes_are_notes():
    assert committed_bad_summaries(rows(f'{HEADER}\n- (outdated) Ada said: "I start on Monday."\n{NOTE}')) == 1


def test_a_summary_with_a_model_line_is_fine():
    assert committed_bad_summaries(rows(f"{HEADER}\n{MODEL}\n{NOTE}")) == 0
    assert committed_bad_summaries(rows(MODEL)) == 0
    assert committed_bad_summaries(rows(f"{HEADER} Ada joined a chess club.")) == 0  # text after the note
    assert committed_bad_summaries(rows(f"{HEADER}\n{MODEL}", f"{HEADER}\n{NOTE}", "")) == 2  # each pair counts


def test_only_summary_pairs_count():
    turns = [(1, HumanMessage(content=NOTE)), (1, AIMessage(content=NOTE)), (2, AIMessage(content=""))]
    assert committed_bad_summaries(turns) == 0
