"""Summaries of a conversation between two people (client/core/context/speakers.py and the rolling
summary): who said it, one section per session under its date, relative dates anchored, and the
verbatim notes capped to a share of their span."""

from __future__ import annotations

import asyncio
import datetime as dt

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from client.core.context.budget import estimate_text_tokens
from client.core.context.rolling import notes_of, roll_summary, section_for
from client.core.context.speakers import anchor_dates, note_date, participants_line, session_note
from client.core.context.summarize import chunk_turns, plan_summary, render_turns

NAMES = ("Ada", "Ben")


def test_relative_dates_carry_the_date_they_mean():
    when = note_date(session_note(2, "1:14 pm on 25 May, 2023", "en"))
    assert when == dt.date(2023, 5, 25)  # a Thursday
    got = anchor_dates("I ran a race last Saturday and went home yesterday; camping next month, "
                       "painted it last year, moved 4 years ago. yesterday (already anchored)", when)
    assert "last Saturday (Saturday 20 May 2023)" in got and "yesterday (24 May 2023)" in got
    assert "next month (June 2023)" in got and "last year (2022)" in got and "4 years ago (2019)" in got
    assert got.endswith("yesterday (already anchored)")  # never twice
    ko = anchor_dates("어제 강아지를 입양했고 다음 달에 이사해.", note_date("[세션 1 · 2024년 3월 4일 오후 7:10]"))
    assert ko == "어제 (2024년 3월 3일) 강아지를 입양했고 다음 달에 (2024년 4월) 이사해."
    assert anchor_dates("yesterday", None) == "yesterday"  # no session date: nothing to anchor to


def _conversation(sessions: int = 3, filler: int = 6) -> list:
    msgs = [SystemMessage(content="You help.\n\n" + participants_line(NAMES, "en"))]
    for n in range(1, sessions + 1):
        msgs.append(HumanMessage(content=f"{session_note(n, f'10:00 am on {n} March, 2024', 'en')}\n"
                                         f"I adopted cat number {n} yesterday. Her name is Pixel{n}."))
        msgs.append(AIMessage(content=f"Congrats! I started cello lesson {n} with Mrs Ortiz last week."))
        for word in ("so sweet", "so kind", "so lovely", "so good", "so true", "so fun")[:filler]:
            msgs.append(HumanMessage(content=f"That is {word}, thanks a lot!"))
            msgs.append(AIMessage(content="Totally agree with you, really."))
    msgs.append(HumanMessage(content="last"))
    msgs.append(AIMessage(content="ok"))
    return msgs


def test_one_chunk_per_session():
    plan = plan_summary(_conversation(), 1, 1)
    chunks = chunk_turns(plan.to_summarize, 6000)
    assert len(chunks) == 3
    assert all(render_turns(c, "en").startswith("User: [Session") for c in chunks)


def test_two_peoples_sections_name_them_and_keep_both_sides():
    requests = []

    async def ask(request):
        requests.append(request)
        return "- Ada adopted a cat."

    plan = plan_summary(_conversation(), 1, 1)
    rolled = asyncio.run(roll_summary(plan, ask, chunk_tokens=6000, summary_budget=5000))
    system, body = requests[0][0].content, requests[0][1].content
    assert "Ada (the user) and Ben (the assistant)" in system
    assert "Ada: [Session 1" in body and "Ben: Congrats!" in body and "User:" not in body
    text = rolled.text
    assert text.startswith("[Session 1 · 10:00 am on 1 March, 2024]\n- Ada adopted a cat.")
    assert text.count("[Session ") == 3  # each section under its session's note
    notes = notes_of(text)
    assert "I adopted cat number 1 yesterday (29 February 2024)." in notes  # anchored to the session's date
    assert any(n.startswith("I started cello lesson 2 with Mrs Ortiz") for n in notes)  # the assistant is a person
    assert '- Ben said: "I started cello lesson 3 with Mrs Ortiz last week (the week before 3 March 2024)."' in text
    assert "so sweet" not in text and "Totally agree" not in text  # chit-chat has no fact: not kept


def test_notes_are_capped_to_a_share_of_their_span_surest_facts_first():
    span = [[HumanMessage(content=f"I think the weather is rather nice and warm today, number {i} of them."),
             AIMessage(content="Yes.")] for i in range(40)]
    span.append([HumanMessage(content="My locker code is 4817 at Lisbon Station."), AIMessage(content="Noted.")])
    got = section_for(span, "- The user talked about the weather.", "en")
    assert estimate_text_tokens(got) < estimate_text_tokens(render_turns(span, "en")) * 0.2
    assert 'User said: "My locker code is 4817 at Lisbon Station."' in got  # more values: kept first


def test_a_refused_session_ends_the_roll_there_and_the_rest_stays_verbatim():
    """One unusable section does not cost the sessions before it; it and the later ones stay turns."""
    from client.core.context.summarize import apply_summary
    from client.core.context.turns import split

    async def ask(request):
        return "" if "[Session 2" in request[-1].content else "- Ada adopted a cat."

    plan = plan_summary(_conversation(), 1, 1)
    rolled = asyncio.run(roll_summary(plan, ask, chunk_tokens=6000, summary_budget=5000))
    assert rolled.text.count("[Session ") == 1 and rolled.rejected == ["empty", "empty"]
    done = rolled.plan(plan)
    after = split(apply_summary(done, rolled.text))
    assert after.turns[0][0].content.startswith("[Session 2 ·")  # the refused session, verbatim
    assert len(after.turns) == len(plan.to_summarize) - rolled.covered + len(plan.keep)


def test_a_fact_that_says_cannot_is_no_refusal():
    from client.core.context.quality import degenerate_reason

    assert degenerate_reason("- 서준은 고수를 먹을 수 없습니다.") is None
    assert degenerate_reason("- Ben can't eat coriander.") is None
    assert degenerate_reason("죄송합니다, 요약할 수 없습니다.") == "refusal"
