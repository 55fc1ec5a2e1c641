"""Memory extraction with a small model (issue 14): near-miss answers parse, tool-error echoes
and secrets never become memory, sources name only turns that exist."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from client.engine.memory.extract import render_session
from client.core.memory.candidates import Conversation, grounded_items
from client.core.memory.parse import parse_bullets
from client.core.memory.policy import FormatError


def texts(bullets):
    return [(b.text, b.sources) for b in bullets]


# Answers written by Qwen2.5-Coder-1.5B (local provider, temperature 0) to EXTRACT_PROMPT.
def test_small_model_quotes_env_var_names_from_a_tool_error():
    answer = ("- [턴 1, NAVER_CLIENT_ID, NAVER_CLIENT_SECRET] 네이버 검색 API 키가 설정되지 않았습니다.\n"
              "- [턴 1] 사용자의 고양이 이름은 모찌이다.")
    assert texts(parse_bullets(answer)) == [("사용자의 고양이 이름은 모찌이다.", [1])]


def test_only_env_var_bullets_is_nothing_usable():
    with pytest.raises(FormatError):
        parse_bullets("- [턴 1, NAVER_CLIENT_ID, NAVER_CLIENT_SECRET] 검색 도구 인증 실패")


def test_fact_inside_the_brackets():  # Qwen2.5-Coder-1.5B, "I am vegetarian, I never eat meat."
    assert texts(parse_bullets("- [턴 1, vegetarianism]")) == [("vegetarianism", [1])]


def test_category_echoes_are_not_facts():  # Qwen2.5-Coder-1.5B on a two-turn session
    with pytest.raises(FormatError):  # nothing usable: the format reminder retry follows
        parse_bullets("- [턴 3, 개인 정보] - [턴 4, 진행 중인 일과 약속]")


def test_two_bullets_on_one_line():
    assert texts(parse_bullets("- [턴 1] 고양이 이름은 모찌 - [턴 2] 부산에 산다")) == [
        ("고양이 이름은 모찌", [1]), ("부산에 산다", [2])]


def test_summary_style_answer():
    answer = "요약: 사용자는 채식주의자이며 고기를 전혀 먹지 않는다."
    assert texts(parse_bullets(answer)) == [("사용자는 채식주의자이며 고기를 전혀 먹지 않는다.", [])]


def test_summary_header_then_lines():
    answer = "요약:\n사용자는 채식주의자이다.\n사용자는 고기를 먹지 않는다."
    assert texts(parse_bullets(answer)) == [("사용자는 채식주의자이다.", []), ("사용자는 고기를 먹지 않는다.", [])]


@pytest.mark.parametrize("answer", [
    "* [턴 1] 사용자는 채식주의자이다.\n* [턴 2] 다음 주 목요일에 부산 출장",
    "• [1] 사용자는 채식주의자이다.\n• [2] 다음 주 목요일에 부산 출장",
    "· (턴 1) 사용자는 채식주의자이다.\n· (턴 2) 다음 주 목요일에 부산 출장",
    "1. [턴 1] 사용자는 채식주의자이다.\n2. [턴 2] 다음 주 목요일에 부산 출장",
    "1) [1] 사용자는 채식주의자이다.\n2) [2] 다음 주 목요일에 부산 출장",
    "장기 기억 후보:\n- [턴 1] 사용자는 채식주의자이다.\n- [턴 2] 다음 주 목요일에 부산 출장",
    "```\n- [턴 1] 사용자는 채식주의자이다.\n- [턴 2] 다음 주 목요일에 부산 출장\n```",
    "- [turn 1] 사용자는 채식주의자이다.\n- [turn 2] 다음 주 목요일에 부산 출장",
])
def test_other_marks_numbers_headers_fences(answer):
    assert texts(parse_bullets(answer)) == [("사용자는 채식주의자이다.", [1]), ("다음 주 목요일에 부산 출장", [2])]


def test_no_sources():
    assert texts(parse_bullets("- 사용자는 채식주의자이다.\n- 사용자는 고양이를 키운다.")) == [
        ("사용자는 채식주의자이다.", []), ("사용자는 고양이를 키운다.", [])]


@pytest.mark.parametrize("answer", ["없음", "없음.", "(없음)", "None", "- 없음", "뽑을 것이 없습니다.",
                                    "이 대화에는 저장할 만한 정보가 없습니다."])
def test_nothing_in_many_words(answer):
    assert parse_bullets(answer) == []


def test_decimal_is_not_a_numbered_line():
    assert texts(parse_bullets("- [1] 체중을 1.5kg 줄이는 중")) == [("체중을 1.5kg 줄이는 중", [1])]


def rows():
    return [
        (1, HumanMessage("기억해 줘: 내 고양이 이름은 모찌야.")),
        (1, AIMessage("", tool_calls=[{"name": "web_search", "args": {"query": "모찌"}, "id": "c1"}])),
        (1, ToolMessage("Naver API 인증에 실패했습니다 — NAVER_CLIENT_ID/NAVER_CLIENT_SECRET 값을 확인하세요",
                        tool_call_id="c1", status="error")),
        (1, AIMessage("검색에 실패했습니다. 인증 정보를 확인해 주세요.")),
        (2, HumanMessage("I am vegetarian, I never eat meat.")),
        (2, AIMessage("Noted! I will suggest vegetarian dishes.")),
        (3, HumanMessage("고마워")),
        (3, AIMessage("NAVER_CLIENT_ID를 설정하면 검색할 수 있어요.")),
    ]


def test_the_extractor_reads_the_users_words_only_by_default():
    text = render_session(rows())
    assert "NAVER" not in text and "인증" not in text
    assert "[턴 1] 사용자: 기억해 줘: 내 고양이 이름은 모찌야." in text
    assert "어시스턴트" not in text and "Noted" not in text


def test_tool_errors_never_reach_the_extractor_with_the_assistants_answers():
    text = render_session(rows(), assistant=True)
    assert "NAVER" not in text and "인증" not in text
    assert "[턴 2] 어시스턴트: Noted!" in text


def test_sources_name_only_turns_that_exist_or_are_guessed_from_the_users_words():
    bullets = parse_bullets("- [턴 7] 사용자의 고양이 이름은 모찌이다.\n- [턴 2, 9] The user is vegetarian and never eats meat.\n"
                            "- 사용자는 축구를 좋아한다.")
    out = grounded_items(bullets, Conversation.of(rows()))
    assert texts(out) == [("사용자의 고양이 이름은 모찌이다.", [1]), ("The user is vegetarian and never eats meat.", [2])]
    # 축구: the user never said it (nor a source for it): not the user's


def test_secret_values_are_dropped():
    bullets = parse_bullets("- [1] 고양이 키는 sk-secret-12345 이다\n- [2] 사용자는 채식주의자는 아니다 vegetarian")
    assert texts(grounded_items(bullets, Conversation.of(rows()), secrets=["sk-secret-12345"])) == [
        ("사용자는 채식주의자는 아니다 vegetarian", [2])]


def test_garbage_is_a_format_error_for_the_retry():
    with pytest.raises(FormatError):
        parse_bullets("요약:\n")


def test_self_statements_fallback():
    from client.core.memory.statements import self_statements

    got = texts(self_statements(rows() + [(4, HumanMessage("What should I cook tonight?")),
                                          (5, HumanMessage("서울 날씨 알려줘"))]))
    assert got == [("사용자의 말: 내 고양이 이름은 모찌야.", [1]),
                   ("사용자의 말: I am vegetarian, I never eat meat.", [2])]


async def test_extraction_falls_back_to_the_users_words_when_the_model_gives_nothing_usable():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from client.engine.memory.extract import extract_candidates

    model = FakeListChatModel(responses=["- [턴 1] - [턴 1]", "- [턴 3, 개인 정보]"])  # real small-model answers
    out = (await extract_candidates(model, rows())).all()
    assert [b.text for b in out] == ["사용자의 말: 내 고양이 이름은 모찌야.", "사용자의 말: I am vegetarian, I never eat meat."]
