"""Memory keeps what the user said about themselves (issue 27): markup stripped, prompt echoes
caught, items grounded in the user's words, the user's own statements as the sound fallback.
Answers marked "small model" are what Qwen2.5-Coder-1.5B wrote (local provider, temperature 0)."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from client.core.memory.candidates import Candidates, Conversation, choose, grounded_items
from client.core.memory.ground import Vocabulary, grounding, is_echo, strip_markup, words
from client.core.memory.parse import parse_bullets
from client.core.memory.statements import scoring_text, self_statements, statements_of
from client.engine.memory.extract import PROMPT_LINES

BUSAN = [  # the issue's conversation: name and city, then the model names places the user never did
    (1, HumanMessage("안녕, 내 이름은 박지민이야.")),
    (1, AIMessage("반가워요, 지민 님!")),
    (2, HumanMessage("부산 해운대에 살아. 주말에 갈 만한 곳 추천해 줘.")),
    (2, AIMessage("해운대라면 '길거리의 빌라즈마'와 카페 '바다정원'을 추천해요. 사장님 최한결 씨가 친절해요.")),
    (3, HumanMessage("고마워!")),
    (3, AIMessage("천만에요!")),
]


def texts(bullets):
    return [(b.text, b.sources) for b in bullets]


@pytest.mark.parametrize("raw, text, turns", [
    ("- [ TURN 2, 3] 길거리의 빌라즈마: 부산의 유명한 맛집…", "길거리의 빌라즈마: 부산의 유명한 맛집", [2, 3]),  # the issue's
    ("1. - [턴 2] **사용자는 부산에 산다** (출처: 턴 2)", "사용자는 부산에 산다", [2]),
    ("턴 3: 사용자의 이름은 지민이다", "사용자의 이름은 지민이다", [3]),
    ('"My name is Minji" [turn 1]', "My name is Minji", [1]),
    ("- 사용자는 해운대(턴 2)에 산다", "사용자는 해운대 에 산다", [2]),
    ("* `사용자는 커피를 좋아한다`", "사용자는 커피를 좋아한다", []),
])
def test_markup_sources_and_quotes_are_stripped(raw, text, turns):
    assert strip_markup(raw) == (text, turns)


def test_words_cut_korean_particles_and_keep_numbers():
    assert [w.stem for w in words("사용자의 이름은 민지이고 사물함 번호는 4817이다")] == ["민지", "사물함", "4817"]
    assert [w.stem for w in words("The user's daughters like pottery")] == ["daughter", "like", "pottery"]


def test_a_place_only_the_assistant_named_is_not_grounded():
    conv = Conversation.of(BUSAN)
    user, assistant = Vocabulary(conv.user.values()), Vocabulary(conv.assistant.values())
    invented = grounding("길거리의 빌라즈마: 부산 해운대의 유명한 맛집", user, assistant)
    assert not invented.grounded and "빌라즈마" in invented.borrowed and "부산" in invented.user
    assert not grounding("사용자는 해운대의 카페 바다정원을 좋아한다", user, assistant).grounded
    assert grounding("사용자는 부산 해운대에 산다", user, assistant).grounded
    assert grounding("사용자의 이름은 박지민이다", user, assistant).grounded  # 박지민이다 ~ 박지민이야


def test_a_name_the_extractor_made_up_is_not_grounded():
    conv = Conversation.of(BUSAN)
    g = grounding("사용자의 이름은 김민수이다", Vocabulary(conv.user.values()), Vocabulary(conv.assistant.values()))
    assert not g.grounded and g.own == ("김민수",)  # 이름 frames the fact; the name is nobody's


def test_english_paraphrase_is_grounded_translation_is_not():
    rows = [(1, HumanMessage("I'm vegan, so no dairy or eggs for me.")), (1, AIMessage("Try the Green Thimble bakery."))]
    conv = Conversation.of(rows)
    user, assistant = Vocabulary(conv.user.values()), Vocabulary(conv.assistant.values())
    assert grounding("The user is vegan and avoids dairy and eggs", user, assistant).grounded
    assert not grounding("The user likes the Green Thimble bakery", user, assistant).grounded
    assert not grounding("사용자는 비건이다", user, assistant).grounded  # a translation: the statement covers it


def test_a_script_the_user_never_wrote_is_the_extractors_slip():
    rows = [(1, HumanMessage("I live in Leeds and work as a pharmacist.")), (1, AIMessage("Leeds is lovely."))]
    conv = Conversation.of(rows)
    user, assistant = Vocabulary(conv.user.values()), Vocabulary(conv.assistant.values())
    assert grounding("The user lives in Leeds", user, assistant).grounded
    assert not grounding("使用자가 Leeds에서 살고 있다", user, assistant).grounded  # small model


def test_prompt_echoes_are_caught():
    user = Vocabulary(["나는 부산에 살아"])
    assert is_echo("내용", PROMPT_LINES, user)  # "- [턴 번호] 문장" with the marks gone
    assert is_echo("사용자는 파이썬을 공부하고 있다", PROMPT_LINES, user)  # the example, never said
    assert not is_echo("사용자는 대전에 살고 회사에 다닌다", PROMPT_LINES, Vocabulary(["나는 대전에 살고 회사에 다녀"]))
    # the example word for word: an echo, even when the user said the name (in a question)
    assert is_echo("사용자의 이름은 지훈이다.", PROMPT_LINES, Vocabulary(["지훈이가 누구야"]))


def test_the_issues_answers_leave_the_users_facts_and_not_the_invention():
    # small model: an invented place with its markup, and the format line echoed back
    answer = "- [ TURN 2, 3] 길거리의 빌라즈마: 부산 해운대의 유명한 맛집…\n- [턴 2] 사용자는 해운대 카페 바다정원을 좋아한다."
    got = choose("both", parse_bullets(answer), BUSAN, PROMPT_LINES)
    assert got.grounded == []
    assert texts(got.combined(0.5)) == [("사용자의 말: 안녕, 내 이름은 박지민이야.", [1]), ("사용자의 말: 부산 해운대에 살아.", [2])]
    echo = parse_bullets("- [턴 1, 2, 3, 4] `- [ turno 번호, ...] 내용`")
    assert texts(choose("both", echo, BUSAN, PROMPT_LINES).combined(0.5)) == texts(got.combined(0.5))
    assert choose("llm", echo, BUSAN, PROMPT_LINES).all() == []


def test_a_users_question_grounds_nothing():
    rows = [(1, HumanMessage("하늘은 왜 파란 거야?")), (1, AIMessage("레일리 산란 때문이에요.")),
            (2, HumanMessage("What's a good stretch for back pain?")), (2, AIMessage("Try the cat-cow stretch."))]
    answer = ("- [턴 1] 사용자의 하늘은 왜 파란 거야? 질문을 덧붙인 결과는 `없음` 한 줄.\n"  # small model
              "- [턴 1] 사용자는 파란 하늘을 좋아한다.\n- [턴 2] 사용자의 목표는 back stretch 이다.")
    assert choose("both", parse_bullets(answer), rows, PROMPT_LINES).all() == []


def test_statements_come_back_when_the_scorer_drops_the_items_that_cover_them():
    answer = "- [턴 1] 사용자의 이름은 박지민이다.\n- 사용자는 부산 해운대에 산다.\n- [턴 2] 사용자는 바다정원을 좋아한다."
    got = choose("both", parse_bullets(answer), BUSAN, PROMPT_LINES)
    assert texts(got.grounded) == [("사용자의 이름은 박지민이다.", [1]), ("사용자는 부산 해운대에 산다.", [2])]  # source guessed
    assert texts(got.combined(0.5)) == texts(got.grounded)  # unscored: the items cover both statements
    got.grounded[0].score, got.grounded[1].score = 0.3, 0.9  # the scorer drops the name item
    assert texts(got.combined(0.5)) == [*texts(got.grounded), ("사용자의 말: 안녕, 내 이름은 박지민이야.", [1])]
    assert texts(choose("llm", parse_bullets(answer), BUSAN, PROMPT_LINES).all()) == texts(got.grounded)
    assert texts(choose("llm", None, BUSAN, PROMPT_LINES).all()) == texts(self_statements(BUSAN))  # extraction failed
    assert choose("user", parse_bullets(answer), BUSAN).all() == self_statements(BUSAN)


def test_a_statement_with_more_than_the_items_say_is_kept():
    grounded = grounded_items(parse_bullets("- [턴 2] 사용자는 부산에 산다."), Conversation.of(BUSAN))
    got = Candidates(grounded, self_statements(BUSAN)).combined(0.5)
    assert [b.text for b in got] == ["사용자는 부산에 산다.", "사용자의 말: 안녕, 내 이름은 박지민이야.",
                                     "사용자의 말: 부산 해운대에 살아."]  # 해운대: more than the item says


@pytest.mark.parametrize("turn, kept", [
    ("기억해 줘: 내 고양이 이름은 모찌야.", ["내 고양이 이름은 모찌야."]),
    ("Please remember that my locker is 4817.", ["my locker is 4817."]),
    ("광주에 살고 있는데 주말에 갈 만한 곳 추천해 줘.", ["광주에 살고 있는데 주말에 갈 만한 곳 추천해 줘."]),
    ("I live in Lisbon, can you suggest a cafe?", ["I live in Lisbon, can you suggest a cafe?"]),
    ("나는 내일 이사하니까 짐 목록 만들어 줘", ["나는 내일 이사하니까 짐 목록 만들어 줘"]),
    ("파이썬에서 리스트 정렬하는 법 알려줘.", []),
    ("What should I cook tonight?", []),
    ("How do I reverse a string?", []),
    ("하늘은 왜 파란 거야?", []),
    ("부산에 살아. 맛집 알려줘.", ["부산에 살아."]),
    ("NAVER_CLIENT_ID 값은 abc야", []),
    ("ㅋㅋ", []),
    ("내가 어디에 살고, 강아지 이름이 뭐였지?", []),
    ("Where do I live, and what is my dog called?", []),
    ("내 고양이는 누구나 좋아하는데, 이름 지어 줄래?", ["내 고양이는 누구나 좋아하는데, 이름 지어 줄래?"]),
    ("언제나 일찍 일어나는데 아침 메뉴 추천해 줘.", ["언제나 일찍 일어나는데 아침 메뉴 추천해 줘."]),
])
def test_statements_are_the_users_declarative_sentences(turn, kept):
    assert statements_of(turn) == kept


def test_the_scorer_reads_the_sentence_without_the_prefix():
    assert scoring_text("사용자의 말: 오늘 날씨 좋네") == "오늘 날씨 좋네"
    assert scoring_text("사용자는 채식주의자다") == "사용자는 채식주의자다"
