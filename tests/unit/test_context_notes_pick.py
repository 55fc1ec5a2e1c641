"""Which sentences a rolling summary keeps word for word (client/core/context/quality.py,
rolling.py), for a long chat between two people as much as for a user's chat: small talk that
happens to say "actually" is no correction, an apostrophe is no quotation, a duration in words is
a value, and what someone likes, lists or did on a date outranks agreement."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from client.core.context.quality import fact_score, is_correction, lists_things, value_terms
from client.core.context.rolling import _without_questions, adds_to, mark_superseded, notes_of, roll_summary, section_for
from client.core.context.speakers import participants_line, session_note
from client.core.context.summarize import plan_summary

PEOPLE = {"ada", "ben"}


@pytest.mark.parametrize("sentence", ["Yeah actually!", "The soup was actually pretty tasty, so I'm pleased.",
                                      "It's actually kind of relaxing.", "I had pasta instead.", "사실 그랬어.",
                                      "Yeah actually - I'm back at the chess club again and it's WILD!"])
def test_small_talk_with_actually_is_no_correction(sentence):
    assert not is_correction(sentence)


@pytest.mark.parametrize("sentence", ["Actually, my sister is Clara.", "Actually the meeting moved to Thursday.",
                                      "Actually I don't eat meat anymore.", "Actually it is at 5 pm.",
                                      "사실 나는 오이를 안 먹어.", "사실 치과 예약은 목요일로 바뀌었어.",
                                      "아 참, 미용실 예약을 금요일로 미뤘어.", "The trip was postponed."])
def test_corrections_still_count(sentence):
    assert is_correction(sentence)


def test_an_apostrophe_in_a_word_is_no_quotation():
    assert value_terms("Yeah - I'm currently in the tournament again and it's intense!") == []
    assert "Blue Harbour" in value_terms("I just read 'Blue Harbour' and it was great!")
    assert "달빛 우체국" in value_terms("제목은 '달빛 우체국'이야.")
    assert "hunter2" in value_terms('My password is "hunter2".')


def test_durations_and_counts_in_words_are_values():
    assert {"three", "3 years ago"} <= {v.lower() for v in value_terms("I got three turtles 3 years ago.")}
    assert value_terms("I first watched it around a few years ago.") == ["few years ago"]
    assert value_terms("보리는 세 살 된 진돗개야.") == ["세 살"]
    assert value_terms("It's one of my favorites!") == []  # "one" is too common to be a value


def test_enumerations():
    assert lists_things("I love jazz and folk records, the sound is so warm!")
    assert lists_things("Besides cooking, I also enjoy sailing, drawing maps, and growing herbs.")
    assert lists_things("So I keep an hour free - cycling, baking, or playing my flute - each day.")
    assert lists_things("보리는 앉아, 기다려, 손을 할 줄 알아.")
    assert not lists_things("Sounds like a nice trip, even if I'm not into boats.")
    assert not lists_things("Hey Ben, good to hear from you!")
    assert not lists_things("Me and my cousin had a great day.")


def test_what_someone_likes_lists_or_did_on_a_date_outranks_agreement():
    chat = ["So we both like the same things.", "Yeah, I see.", "Tell me how it goes - good luck!",
            "Sounds like a nice trip, even if I'm not into boats."]
    facts = ["I love jazz and folk records, the sound is so warm!", "I'm allergic to cats and most birds.",
             "Yeah, I carved that wooden owl last year!", "I first read it around 3 years ago.",
             "Actually the meeting moved to Thursday."]
    assert min(fact_score(f, PEOPLE) for f in facts) > max(fact_score(c, PEOPLE) for c in chat)
    assert fact_score("Yeah actually!", PEOPLE) == 0


def test_what_someone_pursues_or_is_outranks_agreement():
    chat = ["So we both like the same things.", "Yeah, I see.", "That's so cool to hear, good for you."]
    facts = ["I've been researching shelters for older dogs.", "I'm planning to open a bakery.",
             "Honestly I'm single right now and fine with it.", "나는 요즘 제과 자격증 시험을 준비하고 있어."]
    assert min(fact_score(f, PEOPLE) for f in facts) > max(fact_score(c, PEOPLE) for c in chat)


def test_a_note_must_add_to_the_models_lines():
    body = "- Ada finished her first full novel draft and printed it on Friday."
    assert not adds_to("I finally finished my first full novel draft and printed it last Friday.", body, PEOPLE)
    assert adds_to("I finished my draft on 21 January.", body, PEOPLE)  # a value the lines lack
    assert adds_to("It's a mix of mystery and comedy!", body, PEOPLE)  # content words the lines lack
    assert not adds_to("Since our last chat, I finished my first novel draft.", body, PEOPLE)


def test_shared_time_words_do_not_make_a_line_outdated():
    line = '- Ada said: "It made me think of how far I\'ve come since I started sailing three years ago."'
    fix = "I've known my neighbours for 4 years, since I moved from the coast."
    assert mark_superseded(line, [fix], "en") == line
    old = '- Ada said: "My dentist appointment is on Tuesday."'
    assert mark_superseded(old, ["Actually, the dentist appointment moved to Thursday."], "en").startswith("- (outdated) ")


def test_an_empty_bullet_of_the_model_is_dropped():
    assert _without_questions("- Ada wrapped up her second draft.\n-\n - \n- Ben has two canoes.") == \
        "- Ada wrapped up her second draft.\n- Ben has two canoes."


def _two_people(*sessions: list[tuple[str, str]]) -> list:
    msgs = [SystemMessage(content="You help.\n\n" + participants_line(("Ada", "Ben"), "en"))]
    for n, lines in enumerate(sessions, 1):
        for i, (who, text) in enumerate(lines):
            text = f"{session_note(n, f'7:31 pm on {n + 20} January, 2022', 'en')} {text}" if i == 0 else text
            msgs.append(HumanMessage(content=text) if who == "J" else AIMessage(content=text))
    msgs += [HumanMessage(content="Bye!"), AIMessage(content="Bye!")]
    return msgs


def test_a_two_people_summary_keeps_facts_not_small_talk():
    first = [("J", "Hey Ben! Good to hear from you!"), ("N", "I won my first chess tournament last week - so exciting!"),
             ("J", "So we both like the same things."), ("N", "Yeah actually!"),
             ("J", "I'm all about mysteries and comedies."), ("N", "I love jazz and folk records, the sound is so warm!"),
             ("J", "I first read it around 3 years ago."), ("N", "Tell me how it goes - good luck!")]
    second = [("J", "Hi again!"), ("N", "Yeah actually - I'm at the chess club again and it's WILD!")]

    async def ask(request):
        return "- Ada and Ben caught up."

    plan = plan_summary(_two_people(first, second), 1, 1)
    text = asyncio.run(roll_summary(plan, ask, chunk_tokens=6000, summary_budget=5000)).text
    notes = notes_of(text)
    assert "I won my first chess tournament last week (the week before 21 January 2022) - so exciting!" in notes
    assert "I love jazz and folk records, the sound is so warm!" in notes
    assert "I first read it around 3 years ago (2019)." in notes
    assert "Yeah actually!" not in notes and "(outdated)" not in text  # no correction in either session


def test_notes_of_a_users_chat_keep_their_corrections():
    span = [[HumanMessage(content="My dentist appointment is on Tuesday."), AIMessage(content="Noted.")],
            [HumanMessage(content="Actually it moved to Thursday."), AIMessage(content="Updated.")]]
    got = section_for(span, "- The user has a dentist appointment.", "en")
    assert '"Actually it moved to Thursday."' in got


def test_a_korean_name_is_a_value_and_its_naming_is_kept():
    from client.core.context.quality import named_ko

    assert named_ko("응, 이름은 보리야.") == ["보리"]
    assert named_ko("이름은 두부고 흰색 코리안 숏헤어야.") == ["두부"]
    assert named_ko("남동생 이름은 도윤이고 다음 주에 군대에 가.") == ["도윤"]
    assert "보리" in value_terms("응, 이름은 보리야.")
    assert fact_score("응, 이름은 보리야.", {"지민", "서준"}) > 0  # a fact in a two-people chat, not talk
    # the model's lines mention the dog, not that it is called so: the naming is kept
    assert adds_to("응, 이름은 보리야.", "- 서준은 보리를 산책시킨다.", {"지민", "서준"})
    assert not adds_to("응, 이름은 보리야.", "- 지민의 강아지 이름은 보리다.", {"지민", "서준"})
    # "고양이: 모찌" names the cat as well as "고양이 이름은 모찌" does; the owner word has to be on the line
    assert not adds_to("내 고양이 이름은 모찌야.", "- 사용자 고양이: 모찌; 사는 곳: 부산")
    assert not adds_to("우리 강아지의 이름은 보리야.", "- 강아지 보리, 세 살")
    assert adds_to("우리 강아지 이름은 보리야.", "- 고양이: 모찌\n- 보리를 산책시킴")


def test_one_missing_word_of_a_short_sentence_is_enough():
    body = "- 지민은 출판사에서 그림책 편"  # the model's line cut short
    assert adds_to("나는 출판사에서 그림책 편집자로 일하잖아.", body, {"지민", "서준"})


def test_what_someone_does_for_a_living_ranks_up():
    assert fact_score("나는 출판사에서 그림책 편집자로 일하잖아.", {"지민"}) > fact_score("나는 요즘 정신이 없어.", {"지민"})
    assert fact_score("I work as a nurse at the clinic.", PEOPLE) > fact_score("I'm so tired these days.", PEOPLE)
