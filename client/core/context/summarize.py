"""Which span to summarize, the text the summarizer reads, and the result.

Pure: the model call that produces the summary lives in the agent adapter.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from client.core.context.budget import estimate_text_tokens
from client.core.context.quality import Lang, detect_lang
from client.core.context.speakers import session_note_of
from client.core.context.turns import Split, split, summary_pair, text_of

SUMMARY_SYSTEM_PROMPT = (
    "당신은 대화 기록을 정리하는 요약가입니다. 아래 대화를 이후 대화에 필요한 내용이 빠지지 않도록 "
    "한국어로 간결하게 요약하세요.\n"
    "반드시 남길 것: 사용자가 밝힌 사실과 개인 정보, 이름, 숫자와 날짜, 장소, 조건과 제약, 선호와 취향, "
    "정정된 내용(바뀐 뒤의 값), 아직 끝나지 않은 요청과 할 일, 어떤 도구를 어떤 인자로 호출했고 무엇을 얻었는지.\n"
    "인사말과 잡담은 생략하고, 어시스턴트가 한 일반적인 설명·조언·방법 안내(예: 리스트 정렬법)는 옮기지 말고 "
    "필요하면 주제만 몇 단어로 적으세요. 이전 요약이 있으면 그 내용도 새 요약에 합치세요. "
    "짧은 글머리표 몇 줄로, 요약문만 출력하세요."
)
SUMMARY_SYSTEM_PROMPT_EN = (
    "You summarize a conversation so that nothing needed later is lost. Write the summary in English, briefly.\n"
    "Always keep: facts the user stated about themselves, names, numbers and dates, places, constraints, "
    "preferences, corrections (the value after the change), unfinished requests, and which tools were called "
    "with which arguments and what they returned.\n"
    "Skip greetings and small talk. Do not restate the assistant's general explanations, advice or how-tos "
    "(e.g. how to sort a list); at most name the topic in a few words. If a previous summary is given, merge it in. "
    "Answer with a few short bullet lines and nothing else."
)
# two people (an imported conversation, client/core/context/speakers.py): both speakers' words are facts
PEOPLE_PROMPT = (
    "당신은 두 사람, {a}(사용자)와 {b}(어시스턴트)의 대화 한 부분을 요약합니다. 나중에 이 대화에 대한 질문에 답할 수 있도록 "
    "한국어로 짧은 글머리표 8줄 이내로 쓰고, 각 줄은 그 일의 주인공 이름으로 시작하세요.\n"
    "반드시 남길 것: 각자 한 일과 겪은 일, 계획, 일이 있었던 날짜나 때, 사람·반려동물·장소의 이름, 숫자, 좋아하는 것과 싫어하는 것, "
    "중요한 일에 대한 생각, 정정된 내용(바뀐 뒤의 값).\n인사, 감사, 칭찬, 맞장구는 생략하세요. 요약문만 출력하세요."
)
PEOPLE_PROMPT_EN = (
    "You summarize one part of a conversation between two people, {a} (the user) and {b} (the assistant), so that "
    "questions about it can be answered later. Write in English: at most 8 short bullet lines, each starting with the "
    "name of the person it is about.\n"
    "Always keep: what each of them did or went through, plans, when things happened (dates, days, 'last week'), "
    "names of people, pets and places, numbers, likes and dislikes, what they think of important events, and "
    "corrections (the value after the change).\nSkip greetings, thanks, compliments and agreement. "
    "Answer with the bullet lines only."
)
FOCUS_LINE = "특히 다음 내용을 중심으로 남기세요: {focus}"
FOCUS_LINE_EN = "Above all keep: {focus}"
LABELS = {
    "ko": {"user": "사용자", "assistant": "어시스턴트", "call": "도구 호출", "result": "도구 결과",
           "cut": "생략", "previous": "[이전 요약]", "conversation": "[대화]"},
    "en": {"user": "User", "assistant": "Assistant", "call": "Tool call", "result": "Tool result",
           "cut": "cut", "previous": "[Previous summary]", "conversation": "[Conversation]"},
}
TOOL_RESULT_PREVIEW = 1500  # characters of a tool result the summarizer reads
# characters of an assistant answer the summarizer reads: what the user said is what a summary
# must keep; a long generic explanation only tempts a small model to copy it (and costs prompt time)
ASSISTANT_PREVIEW = 300


@dataclass
class SummaryPlan:
    system: SystemMessage | None
    previous_summary: str | None
    to_summarize: list[list[BaseMessage]]  # turns (preamble first, if any) folded into the summary
    keep: list[list[BaseMessage]]  # turns kept verbatim

    @property
    def turns(self) -> int:
        """Turns folded into the summary (a preamble is not one)."""
        return sum(1 for t in self.to_summarize if t and isinstance(t[0], HumanMessage))


def plan_summary(
    messages: Sequence[BaseMessage], summary_after: int, keep_turns: int, *, force: bool = False
) -> SummaryPlan | None:
    """Summarize when the completed turns after the last pair exceed `summary_after`.

    Everything before the last `keep_turns` of them is folded into a new
    summary, the previous one included. `force` (the /compact command)
    summarizes whenever there is anything older than the kept turns.
    """
    s = split(messages)
    n = len(s.turns)
    if not force and n <= summary_after:
        return None
    cut = max(0, n - max(0, keep_turns))
    older = ([s.preamble] if s.preamble else []) + s.turns[:cut]
    if not older:
        return None
    prev = text_of(s.pair[1]) if s.pair else None
    return SummaryPlan(s.system, prev, older, s.turns[cut:])


def apply_summary(plan: SummaryPlan, summary_text: str) -> list[BaseMessage]:
    """System, the synthetic pair, then the kept turns verbatim."""
    out = Split(system=plan.system, pair=summary_pair(summary_text), turns=plan.keep)
    return out.join()


def render_message(m: BaseMessage, lang: Lang = "ko", names: tuple[str, str] | None = None) -> str:
    """One message as the summarizer reads it; `names`: the two people speaking (user, assistant),
    whose names replace the labels."""
    lb = dict(LABELS[lang])
    if names:
        lb["user"], lb["assistant"] = names
    if isinstance(m, HumanMessage):
        return f"{lb['user']}: {text_of(m)}"
    if isinstance(m, ToolMessage):
        body = text_of(m)
        if len(body) > TOOL_RESULT_PREVIEW:
            body = body[:TOOL_RESULT_PREVIEW] + f" …({lb['cut']})"
        return f"{lb['result']}({m.name or 'tool'}): {body}"
    if isinstance(m, AIMessage):
        lines = []
        body = text_of(m).strip()
        if body:
            if len(body) > ASSISTANT_PREVIEW:
                body = body[:ASSISTANT_PREVIEW] + f" …({lb['cut']})"
            lines.append(f"{lb['assistant']}: {body}")
        for tc in m.tool_calls:
            args = json.dumps(tc.get("args", {}), ensure_ascii=False)
            lines.append(f"{lb['call']}: {tc.get('name')}({args})")
        return "\n".join(lines)
    return text_of(m)


def render_turns(turns: Sequence[Sequence[BaseMessage]], lang: Lang = "ko", names: tuple[str, str] | None = None) -> str:
    blocks = []
    for t in turns:
        blocks.append("\n".join(r for r in (render_message(m, lang, names) for m in t) if r))
    return "\n\n".join(blocks)


def span_user_texts(turns: Sequence[Sequence[BaseMessage]]) -> list[str]:
    return [text_of(m) for t in turns for m in t if isinstance(m, HumanMessage)]


def span_lang(turns: Sequence[Sequence[BaseMessage]]) -> Lang:
    """The conversation's language, from what the user wrote in the span."""
    return detect_lang(span_user_texts(turns))


def starts_session(turn: Sequence[BaseMessage]) -> bool:
    return bool(turn) and isinstance(turn[0], HumanMessage) and session_note_of(text_of(turn[0])) is not None


def chunk_turns(
    turns: Sequence[Sequence[BaseMessage]], max_tokens: int
) -> list[list[Sequence[BaseMessage]]]:
    """Group whole turns into chunks whose rendered text fits `max_tokens`.

    A single turn larger than the limit is its own chunk (its tool results are
    already cut to a preview when rendered). A turn that starts a session (an imported
    conversation's dated note) starts a chunk: one summary section per session, under its date.
    """
    chunks: list[list[Sequence[BaseMessage]]] = []
    current: list[Sequence[BaseMessage]] = []
    used = 0
    for t in turns:
        cost = estimate_text_tokens(render_turns([t]))
        if current and (used + cost > max_tokens or starts_session(t)):
            chunks.append(current)
            current, used = [], 0
        current.append(t)
        used += cost
    if current:
        chunks.append(current)
    return chunks


def summarizer_request(
    previous_summary: str | None, turns: Sequence[Sequence[BaseMessage]], focus: str | None = None,
    lang: Lang | None = None, names: tuple[str, str] | None = None,
) -> list[BaseMessage]:
    """The plain, tool-less request that asks for a summary, in the conversation's language.

    The rolling summary (client/core/context/rolling.py) passes no previous summary: the model
    summarizes only the new span and the previous summary is kept as it was."""
    lang = lang or span_lang(turns)
    lb = LABELS[lang]
    system = SUMMARY_SYSTEM_PROMPT if lang == "ko" else SUMMARY_SYSTEM_PROMPT_EN
    if names:
        system = (PEOPLE_PROMPT if lang == "ko" else PEOPLE_PROMPT_EN).format(a=names[0], b=names[1])
    if focus:
        system += "\n" + (FOCUS_LINE if lang == "ko" else FOCUS_LINE_EN).format(focus=focus)
    body = ""
    if previous_summary:
        body += f"{lb['previous']}\n{previous_summary}\n\n"
    body += f"{lb['conversation']}\n{render_turns(turns, lang, names)}"
    return [SystemMessage(content=system), HumanMessage(content=body)]
