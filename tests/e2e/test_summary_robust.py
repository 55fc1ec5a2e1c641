"""Rolling summaries against models that misbehave, proven on the wire.

A stub summarizer that echoes its request, one that repeats a sentence, one that keeps only
the last line it read: nothing degenerate is stored (no pair at all: the turns stay verbatim),
and no fact of an earlier summary is lost after two rolls. Also: the summary is asked for in the conversation's
language, and a looping chat answer is cut before it is stored.
"""

from __future__ import annotations

from typing import Callable

import pytest

from tests.conftest import roles
from tests.stubs.llm_stub import LLMStub, _content_text

SUMMARY_REQ = "지금까지의 대화를 요약해 주세요."
ARGS = ("--context", "summarize", "--summary-after", "3", "--max-turns", "1", "--no-memory")

KO_FACTS = {  # message -> what a later summary must still hold
    "내 고양이 이름은 모찌야.": "모찌",
    "나는 부산 해운대에 살아.": "해운대",
    "내 생일은 3월 14일이야.": "14",
    "치과 예약은 화요일이야.": "화요일",
    "사실 치과 예약은 목요일로 바뀌었어.": "목요일",
}
KO_FILLERS = ["파이썬에서 리스트를 정렬하는 법을 알려줘", "좋은 아침 인사말을 하나 알려줘",
              "커피와 차 중에 뭐가 나아?", "재미있는 농담 하나 해 줘", "하늘은 왜 파래?",
              "간단한 저녁 메뉴를 추천해 줘", "산책하기 좋은 시간은 언제야?"]
EN_FACTS = {
    "My sister's name is Clara.": "Clara",
    "I live in Lisbon.": "Lisbon",
    "My locker code is 4817.": "4817",
    "The meeting is on Tuesday.": "Tuesday",
    "Actually the meeting moved to Thursday.": "Thursday",
}
EN_FILLERS = ["How do I sort a list in Python?", "Tell me a short joke.", "Why is the sky blue?",
              "What is a good name for a blog?", "Is tea better than coffee?", "Suggest a quick dinner.",
              "When is a good time for a walk?"]


def is_summary_request(body: dict) -> bool:
    msgs = body.get("messages", [])
    system = _content_text(msgs[0].get("content")) if msgs and msgs[0].get("role") == "system" else ""
    return not body.get("tools") and any(k in system for k in ("요약가", "You summarize", "Shorten", "짧게 줄이"))


class SummaryStub(LLMStub):
    """The recording stub, with the summarizer's behaviour chosen by the test."""

    summarize: Callable[[dict], str] | None = None

    def rule(self, body: dict, n: int) -> dict:
        if self.summarize is not None and is_summary_request(body):
            return {"text": self.summarize(body)}
        return super().rule(body, n)


@pytest.fixture
def llm():
    with SummaryStub() as stub:
        yield stub


def conversation(facts: dict[str, str], fillers: list[str]) -> list[str]:
    """Facts spread among fillers: 12 turns, three rolls at N=3, M=1 (after turns 4, 7, 10)."""
    f, g = list(facts), list(fillers)
    return [f[0], g[0], f[1], g[1], f[2], g[2], f[3], g[3], f[4], g[4], g[5], g[6]]


def pairs_sent(llm: LLMStub) -> list[str]:
    """Every summary text the endpoint received inside a chat request, in order, deduplicated."""
    out: list[str] = []
    for req in llm.chat_requests():
        msgs = req["messages"]
        for i, m in enumerate(msgs[:-1]):
            if m["role"] == "user" and m["content"] == SUMMARY_REQ and msgs[i + 1]["role"] == "assistant":
                if not out or out[-1] != msgs[i + 1]["content"]:
                    out.append(msgs[i + 1]["content"])
    return out


def run(cli, llm, msgs: list[str], *extra: str):
    r = cli("--thread", "robust", *ARGS, *extra, input="".join(m + "\n" for m in msgs))
    assert r.code == 0, r.err
    return r


def echo(body: dict) -> str:
    return _content_text(body["messages"][-1]["content"])


def repeat(body: dict) -> str:
    return "대화를 요약하면 다음과 같습니다. " * 60


def forgetful(body: dict) -> str:
    """A plausible summary that drops every fact the user stated."""
    return "- 사용자와 여러 주제로 가볍게 대화함" if "요약가" in body["messages"][0]["content"] else "- Small talk."


def assert_no_loss(llm: LLMStub, facts: dict[str, str], rolls: int = 2) -> list[str]:
    pairs = pairs_sent(llm)
    assert len(pairs) >= rolls, pairs
    for a, b in zip(pairs, pairs[1:]):
        assert b.startswith(a.strip()), "a later summary rewrote an earlier one"
    final = pairs[-1]
    # every fact folded into a summary by now is in the last summary
    folded_msgs = [m for m in facts if all(m != u["content"] for u in llm.chat_requests()[-1]["messages"])]
    assert folded_msgs, "no fact was summarized"
    for m in folded_msgs:
        assert facts[m] in final, (facts[m], final)
    return pairs


@pytest.mark.sqlite_only
@pytest.mark.parametrize("behaviour", [echo, repeat], ids=["echo", "repeat"])
def test_degenerate_summaries_are_never_stored(cli, llm, behaviour):
    """Asked again once, refused again: no pair at all (never an empty or notes-only fallback),
    the turns stay verbatim and the user is told in one line."""
    llm.summarize = behaviour
    msgs = conversation(KO_FACTS, KO_FILLERS)
    r = run(cli, llm, msgs)
    assert len(llm.summary_requests()) >= 2
    assert pairs_sent(llm) == []
    last = llm.chat_requests()[-1]["messages"]
    assert [m["content"] for m in last if m["role"] == "user"] == msgs  # every turn, verbatim
    assert "요약 모델의 답을 쓸 수 없어" in r.err


@pytest.mark.sqlite_only
def test_a_forgetful_summarizer_loses_no_fact_over_two_rolls(cli, llm):
    llm.summarize = forgetful
    run(cli, llm, conversation(KO_FACTS, KO_FILLERS))
    pairs = assert_no_loss(llm, KO_FACTS)
    assert "목요일" in pairs[-1] and pairs[-1].index("화요일") < pairs[-1].rindex("목요일")  # the correction, in order
    # fillers (questions) are not kept verbatim: the summary stays short
    assert "정렬하는 법" not in pairs[-1]


@pytest.mark.sqlite_only
def test_english_conversation_is_summarized_in_english(cli, llm):
    llm.summarize = forgetful
    run(cli, llm, conversation(EN_FACTS, EN_FILLERS), "--lang", "en")
    sreqs = [r for r in llm.requests if is_summary_request(r)]
    assert sreqs and all("English" in r["messages"][0]["content"] for r in sreqs)
    assert all("[Conversation]" in r["messages"][-1]["content"] for r in sreqs)
    assert all("tools" not in r for r in sreqs)  # a plain chat completion
    pairs = assert_no_loss(llm, EN_FACTS)
    assert 'User said: "My sister\'s name is Clara."' in pairs[-1]
    assert "사용자" not in pairs[-1]


@pytest.mark.sqlite_only
def test_a_well_behaved_summary_is_kept_and_extended(cli, llm):
    llm.summarize = lambda body: "- 사용자 고양이: 모찌; 사는 곳: 부산 해운대; 생일 3월 14일; 치과 화요일 → 목요일"
    run(cli, llm, conversation(KO_FACTS, KO_FILLERS))
    pairs = pairs_sent(llm)
    assert len(pairs) >= 2
    assert pairs[0].startswith("- 사용자 고양이: 모찌")
    assert "사용자 발언" not in pairs[0]  # nothing was missing: no verbatim notes
    assert pairs[1].startswith(pairs[0])


@pytest.mark.sqlite_only
def test_a_looping_answer_is_cut_before_it_is_stored(cli, llm):
    loop = "저는 도움이 되는 어시스턴트입니다. " * 40
    llm.push({"text": "첫 답입니다. " + loop})
    r = cli("--thread", "loop", "--no-memory", input="안녕\n다음 질문\n")
    assert r.code == 0, r.err
    second = llm.chat_requests()[1]
    stored = [m["content"] for m in second["messages"] if m["role"] == "assistant"][0]
    assert stored.count("저는 도움이 되는 어시스턴트입니다.") == 1
    assert stored.startswith("첫 답입니다.")
    assert roles(second) == ["system", "user", "assistant", "user"]
    assert "반복" in r.out + r.err  # one notice line
