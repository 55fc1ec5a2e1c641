"""client.core.context.quality and client.core.context.rolling: what a small model may not break."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from client.core.context.quality import (
    cut_loop,
    degenerate_reason,
    detect_lang,
    is_loop,
    missing_terms,
    salient_statements,
)
from client.core.context.rolling import (RETRY_LINE, SUMMARY_TRIES, SummaryUnusable, is_extension, notes_of, roll_summary,
                                         section_for)
from client.core.context.budget import estimate_text_tokens
from client.core.context.summarize import plan_summary


def turn(u: str, a: str = "네, 알겠습니다.") -> list:
    return [HumanMessage(content=u, id=f"u-{u}"), AIMessage(content=a, id=f"a-{u}")]


def run(coro):
    return asyncio.run(coro)


def test_language_follows_the_user():
    assert detect_lang(["내 고양이 이름은 모찌야."]) == "ko"
    assert detect_lang(["My cat's name is Mochi and I live in Lisbon."]) == "en"
    assert detect_lang(["u1", "ok"]) == "ko"  # too little to tell: the default


def test_salient_statements_are_declaratives_not_questions():
    got = salient_statements(["내 고양이 이름은 모찌야.", "하늘은 왜 파래?", "농담 하나 해 줘",
                              "Actually the meeting moved to Thursday.", "Tell me a joke.", "ok thanks"])
    assert got == ["내 고양이 이름은 모찌야.", "Actually the meeting moved to Thursday."]


def test_missing_terms_names_numbers_places():
    assert missing_terms("내 사물함 번호는 4817이야.", "사용자의 사물함 번호는 4817") == []
    assert "4817" in missing_terms("내 사물함 번호는 4817이야.", "사용자의 사물함 번호를 들었다")
    assert missing_terms("I live in Lisbon.", "The user lives in lisbon.") == []


def test_degenerate_answers_are_named():
    assert degenerate_reason("") == "empty"
    assert degenerate_reason("요약입니다. " * 30) == "repetition"
    assert degenerate_reason("I'm sorry, I cannot help with that.") == "refusal"
    req = "[대화]\n사용자: 내 고양이 이름은 모찌야.\n어시스턴트: 네."
    assert degenerate_reason("사용자: 내 고양이 이름은 모찌야.\n어시스턴트: 네.", request_texts=[req]) == "echo"
    assert degenerate_reason("- 사용자의 고양이 이름: 모찌") is None


def test_a_loop_is_cut_after_its_first_round():
    text = "첫 답입니다. " + "같은 말을 되풀이합니다. " * 30
    assert is_loop(text)
    assert cut_loop(text) == "첫 답입니다. 같은 말을 되풀이합니다. …"
    assert cut_loop("짧고 정상적인 답입니다. 두 번째 문장도 있습니다.") is None


def _plan(turns, prev=None):
    msgs = [SystemMessage(content="s")]
    if prev:
        msgs += [HumanMessage(content="지금까지의 대화를 요약해 주세요.", additional_kwargs={"synthetic": True}),
                 AIMessage(content=prev, additional_kwargs={"synthetic": True})]
    for t in turns:
        msgs += t
    return plan_summary(msgs, 1, 1)


def test_previous_summary_is_kept_whatever_the_model_answers():
    prev = '- 고양이: 모찌\n- 사용자 발언: "내 사물함 번호는 4817이야."'
    plan = _plan([turn("나는 부산 해운대에 살아."), turn("저녁 메뉴 추천해 줘")], prev)

    async def good(request):
        assert "모찌" not in request[-1].content  # the model reads only the new span
        return "- 새 내용: 저녁 메뉴 추천"

    rolled = run(roll_summary(plan, good, chunk_tokens=6000, summary_budget=1000))
    assert rolled.text.startswith(prev) and "해운대" in rolled.text
    assert is_extension(prev, rolled.text)


@pytest.mark.parametrize("answer", ["", "요약. " * 50, "I'm sorry, I can't.", "No prior conversation history to summarize.",
                                    "이전 대화 내용이 없습니다.", "- 저녁 메뉴를 추천해 줄 수 있어?"])
def test_an_unusable_answer_is_asked_again_then_the_roll_fails(answer):
    """Never an empty or fallback pair: asked once more with a reminder, then SummaryUnusable
    (the caller keeps the turns verbatim)."""
    seen: list[str] = []

    async def ask(request):
        seen.append(request[-1].content)
        return answer

    plan = _plan([turn("나는 부산 해운대에 살아."), turn("저녁 메뉴를 추천해 줄 수 있어?")], "- 고양이: 모찌")
    with pytest.raises(SummaryUnusable):
        run(roll_summary(plan, ask, chunk_tokens=6000, summary_budget=1000))
    assert len(seen) == SUMMARY_TRIES and RETRY_LINE["ko"] in seen[1] and RETRY_LINE["ko"] not in seen[0]


def test_a_second_answer_that_is_usable_is_taken():
    answers = iter(["", "- 부산 해운대에 산다"])

    async def ask(request):
        return next(answers)

    rolled = run(roll_summary(_plan([turn("나는 부산 해운대에 살아."), turn("고마워")]), ask,
                              chunk_tokens=6000, summary_budget=1000))
    assert rolled.text.startswith("- 부산 해운대에 산다") and rolled.rejected == ["empty"]


def test_compression_keeps_every_note_and_key_word():
    prev = "\n".join("- 사용자는 날씨 이야기를 했다" for _ in range(40))  # redundant lines
    prev += '\n- 사용자 발언: "내 고양이 이름은 모찌야."\n- 여행지: 제주'

    async def ask(request):
        if "짧게 줄이" in request[0].content:
            return "- 사용자는 날씨 이야기를 했다"  # drops 제주 and the note
        return "- 사용자는 해운대에 산다"

    plan = _plan([turn("나는 부산 해운대에 살아."), turn("하늘은 왜 파래?")], prev)
    rolled = run(roll_summary(plan, ask, chunk_tokens=6000, summary_budget=200))
    assert rolled.compressed
    assert len(rolled.text) < len(prev)
    assert "제주" in rolled.text and "내 고양이 이름은 모찌야." in notes_of(rolled.text)
    assert "해운대" in rolled.text


def test_degenerate_compression_is_refused():
    prev = "\n".join(f"- 줄 {i}: 사용자가 말한 내용" for i in range(60))

    async def ask(request):
        return "반복. " * 80 if "짧게 줄이" in request[0].content else "- 부산에 산다"

    plan = _plan([turn("나는 부산에 살아."), turn("하늘은 왜 파래?")], prev)
    rolled = run(roll_summary(plan, ask, chunk_tokens=6000, summary_budget=300))  # over budget, under the cap
    assert not rolled.compressed and rolled.text.startswith(prev)
    assert "repetition" in rolled.rejected


def test_a_summary_no_compression_could_shrink_is_cut_to_its_cap_oldest_notes_first():
    """Else the pair would outgrow the request and be dropped whole."""
    from client.core.context.rolling import bound

    notes = [f'- User said: "I visited city number {i} on a long trip."' for i in range(40)]
    text = "\n".join(["[Session 1 · 3 May, 2024]", "- Ada adopted a cat named Pixel.", *notes,
                      '- User said: "Actually the trip moved to June."'])
    cut = bound(text, 200)
    assert estimate_text_tokens(cut) <= 200
    assert cut.startswith("[Session 1 · 3 May, 2024]\n- Ada adopted a cat named Pixel.")  # the header, the model's line
    assert cut.endswith('"Actually the trip moved to June."') and "number 39" in cut and "number 0 " not in cut
    assert bound(text, 10_000) == text


def test_echoed_questions_are_not_carried_but_facts_are():
    """A small model lists what was asked; those lines state nothing and only cost tokens."""
    span = [turn("How do I sort a list in Python?", "Use sorted()."), turn("My locker number is 4817.", "Noted.")]
    model = "- How do I sort a list in Python?\n- Tell me a joke.\n- The user's locker number is 4817.\n- What is 2+2?"
    got = section_for(span, model, "en")
    assert "sort a list" not in got and "joke" not in got
    assert "locker number is 4817" in got and "What is 2+2?" in got  # a number may be the answer: kept
    assert not notes_of(got)  # the fact is in the model's lines: no verbatim note needed
    ko = section_for([turn("파이썬 리스트 정렬 방법 알려줘", "sorted()")], "- 파이썬 리스트 정렬 방법을 알려줘", "ko")
    assert "정렬" not in ko  # an echo of the request only


def test_lines_copied_from_the_summarizer_instructions_are_dropped():
    """Seen on the local model: a section line that is the prompt's list of what to keep."""
    from client.core.context.rolling import echoes
    from client.core.context.summarize import SUMMARY_SYSTEM_PROMPT, SUMMARY_SYSTEM_PROMPT_EN

    echo_ko = "- 사용자가 밝힌 사실과 개인 정보, 이름, 숫자와 날짜, 장소, 조건과 제약, 선호와 취향"
    got = section_for([turn("나는 부산 해운대에 살아.", "알겠습니다.")], f"- 부산 해운대에 산다.\n{echo_ko}", "ko",
                      SUMMARY_SYSTEM_PROMPT)
    assert "해운대에 산다" in got and "선호와 취향" not in got
    echo_en = "- Always keep: facts the user stated about themselves, names, numbers and dates, places"
    got = section_for([turn("I live in Lisbon.", "Nice.")], f"- The user lives in Lisbon.\n{echo_en}", "en",
                      SUMMARY_SYSTEM_PROMPT_EN)
    assert "lives in Lisbon" in got and "Always keep" not in got
    # ordinary summary lines share words with the prompt, not whole runs of it
    for line in ("The user lives in Lisbon near the river.", "The user stated preferences: spicy food, no cucumbers",
                 "사용자가 밝힌 사실: 여동생 이름은 서연이고 다음 달에 결혼한다.", "사용자의 선호와 취향: 매운 음식"):
        assert not echoes(line, SUMMARY_SYSTEM_PROMPT + SUMMARY_SYSTEM_PROMPT_EN), line


def test_a_run_on_line_is_cut_to_its_first_sentence_and_nothing_said_is_lost():
    model = ("- 매운 음식은 당신에게 맛있지만 오이는 싫어할 수도 있습니다. 이 경우, 다른 종류의 음식을 선택하거나, "
             "차분하게 즐기게 하세요. 또한, 물질적인 요소를 조절하여 더 나은 경험을 얻을 수 있습니다. 내 생일은 5월 3일.")
    got = section_for([turn("나는 매운 음식을 좋아하고 오이는 싫어해. 내 생일은 5월 3일이야.", "네.")], model, "ko")
    assert "오이는 싫어할 수도 있습니다." in got and "물질적인" not in got
    assert "5월 3일" in got  # lost by the cut, so the user's sentence is kept verbatim
    short = "- The user likes tea. They said so twice."
    assert section_for([turn("I like tea.", "OK.")], short, "en").startswith(short)  # short lines stay whole


def test_a_correction_marks_what_it_replaced_without_losing_it():
    from client.core.context.rolling import mark_superseded

    fix = "Actually, the dentist appointment moved to Thursday."
    prev = ("- Dentist appointment on Tuesday morning\n- The user lives in Lisbon.\n"
            "- User said: \"My dentist appointment is on Tuesday.\"\n- User said: \"Actually, my sister is Clara.\"")
    got = mark_superseded(prev, [fix], "en")
    lines = got.splitlines()
    assert lines[0] == "- (outdated) Dentist appointment on Tuesday morning"
    assert lines[1] == "- The user lives in Lisbon."  # another subject: untouched
    assert lines[2] == "- (outdated) User said: \"My dentist appointment is on Tuesday.\""  # still a note
    assert lines[3] == "- User said: \"Actually, my sister is Clara.\""  # a correction is never marked
    assert notes_of(got) == notes_of(prev)
    assert is_extension(prev, got) and mark_superseded(got, [fix], "en") == got
    assert mark_superseded(got, [fix], "ko") == got  # marked once, whatever the language of the roll
    ko = mark_superseded("- 치과 예약은 화요일입니다.\n- 부산 해운대에 산다.", ["사실 치과 예약은 목요일로 바뀌었어."], "ko")
    assert ko == "- (정정 전 값) 치과 예약은 화요일입니다.\n- 부산 해운대에 산다."


def test_a_correction_in_the_same_span_marks_the_earlier_statement_only():
    span = [turn("My dentist appointment is on Tuesday.", "Noted."), turn("I live in Lisbon.", "Nice."),
            turn("Actually, the dentist appointment moved to Thursday.", "Updated.")]
    got = section_for(span, "- Dentist appointment moved to Thursday", "en").splitlines()
    assert got[0] == "- Dentist appointment moved to Thursday"  # the model's line in this span: the new value
    assert got[1:] == ['- (outdated) User said: "My dentist appointment is on Tuesday."',
                       '- User said: "I live in Lisbon."',  # another subject: untouched
                       '- User said: "Actually, the dentist appointment moved to Thursday."']


async def test_a_roll_over_a_correction_marks_the_old_value():
    prev = "- 치과 예약은 화요일입니다."

    async def ask(request):
        return "- 치과 예약이 목요일로 변경됨"  # the model's line on the new value: never marked

    span = [turn("사실 치과 예약은 목요일로 바뀌었어.", "알겠습니다."), turn("고마워")]
    rolled = await roll_summary(_plan(span, prev), ask,
                                chunk_tokens=6000, summary_budget=1000)
    assert rolled.text.startswith("- (정정 전 값) 치과 예약은 화요일입니다.\n- 치과 예약이 목요일로 변경됨")
    assert '"사실 치과 예약은 목요일로 바뀌었어."' in rolled.text
