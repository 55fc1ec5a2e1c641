"""The two plain requests that turn a finished session into scored bullets."""

from __future__ import annotations

from typing import Any, Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from client.core.context import is_synthetic, text_of
from client.core.memory.candidates import Candidates, Source, choose, statements
from client.core.memory.parse import ENV_NAME, own_words, parse_bullets
from client.core.memory.policy import Bullet, FormatError, parse_scores
from client.core.memory.statements import scoring_text
from client.core.memory.structure import prose

EXTRACT_EXAMPLE = [
    "[턴 1] 사용자: 안녕, 나는 지훈이고 대전에 살아.",
    "[턴 2] 사용자: 파이썬 공부 중인데 리스트 정렬하는 법 알려줘.",
    "[턴 3] 사용자: I work night shifts at a bakery.",
    "- [턴 1] 사용자의 이름은 지훈이다.",
    "- [턴 1] 사용자는 대전에 산다.",
    "- [턴 2] 사용자는 파이썬을 공부하고 있다.",
    "- [턴 3] The user works night shifts at a bakery.",
]
EXTRACT_RULES = [
    "당신은 대화 기록에서 장기 기억 후보를 뽑는 도우미입니다.",
    "아래는 한 사용자가 쓴 말입니다. 사용자가 자기 자신에 대해 직접 말한 사실만 뽑으세요: 이름, 사는 곳, 가족, 일, "
    "선호와 제약(식단 등), 날짜가 있는 계획과 약속.",
    "질문, 부탁, 인사, 잡담은 뽑지 마세요. 사용자가 쓰지 않은 내용은 절대 덧붙이지 마세요.",
    "각 항목은 사용자가 쓴 언어로, 사용자가 쓴 단어를 그대로 써서 한 문장으로 씁니다.",
    "형식(이 형식만 출력): 한 줄에 하나씩 `- [턴 번호] 문장`. 뽑을 것이 없으면 `없음` 한 줄.",
]
EXTRACT_PROMPT = "\n".join([*EXTRACT_RULES, "예시 입력:", *EXTRACT_EXAMPLE[:3], "예시 출력:", *EXTRACT_EXAMPLE[3:]])
PROMPT_LINES = [*EXTRACT_RULES, *EXTRACT_EXAMPLE]  # what an echo of the request repeats
SCORE_PROMPT = (
    "다음 항목 각각이 이 사용자와의 다음 대화에 도움이 될 가능성(유용성)을 0에서 1 사이 점수로 매기세요. "
    "선호, 개인 정보, 진행 중인 일은 높게, 일회성 잡담이나 그때만 필요한 정보는 낮게.\n"
    "형식(이 형식만 출력): 한 줄에 하나씩 `번호: 점수` (예: `1: 0.8`), 모든 항목에 대해."
)
RETRY_NOTE = "\n\n앞선 답이 형식에 맞지 않았습니다. 형식을 정확히 지켜 다시 답하세요."
MAX_SESSION_CHARS = 24_000  # a session longer than this is cut from the front


def render_session(rows: Sequence[tuple[int, BaseMessage]], assistant: bool = False) -> str:
    """The session as `[턴 N] 사용자:` lines: the user's own prose only by default (no piped body,
    no pasted code, log or command: structure.py; what the
    assistant wrote cannot be copied into memory, and the request is shorter on a slow CPU);
    `assistant`: its answers too, as `[턴 N] 어시스턴트:`. Tool results never go in, nor an
    answer given after a failed tool call or one naming environment variables: those retell
    tool errors (missing keys), never facts about the user."""
    lines = []
    after_error = False
    for turn, m in rows:
        if isinstance(m, ToolMessage):
            after_error = after_error or m.status == "error"
            continue
        if is_synthetic(m) or not text_of(m).strip():
            continue
        if isinstance(m, HumanMessage):
            after_error = False
            said = prose(own_words(m))
            if said:
                lines.append(f"[턴 {turn}] 사용자: {said}")
        elif assistant and isinstance(m, AIMessage) and not after_error and not ENV_NAME.search(text_of(m)):
            lines.append(f"[턴 {turn}] 어시스턴트: {text_of(m)[:600]}")
    text = "\n".join(lines)
    return text[-MAX_SESSION_CHARS:]


async def _ask(model: Any, system: str, body: str, parse: Any) -> Any:
    """One request, validated; one retry with a format reminder."""
    last: Exception | None = None
    for attempt in range(2):
        reply = await model.ainvoke([SystemMessage(system + (RETRY_NOTE if attempt else "")), HumanMessage(body)])
        try:
            return parse(text_of(reply))
        except FormatError as e:
            last = e
    raise FormatError(str(last))


async def extract_answer(model: Any, rows: Sequence[tuple[int, BaseMessage]], *,
                         assistant: bool = False) -> list[Bullet] | None:
    """The LLM's items as parsed (not yet grounded); [] for nothing, None when twice nothing
    usable came back (a small model)."""
    session = render_session(rows, assistant)
    if not session:
        return []
    try:
        return await _ask(model, EXTRACT_PROMPT, session, parse_bullets)
    except FormatError:
        return None


async def extract_candidates(model: Any, rows: Sequence[tuple[int, BaseMessage]], secrets: Sequence[str] = (),
                             source: Source = "both") -> Candidates:
    """The candidates of a session (client/core/memory/candidates.py). No request when the source
    is "user", nor when the user's turns state nothing (questions and requests only)."""
    ask = source != "user" and bool(statements(rows, secrets))
    llm = await extract_answer(model, rows) if ask else None
    return choose(source, llm, rows, PROMPT_LINES, secrets)


async def score_bullets(model: Any, bullets: Sequence[Bullet]) -> list[float]:
    body = "\n".join(f"{i}. {scoring_text(b.text)}" for i, b in enumerate(bullets, 1))  # as the local scorer reads them
    return await _ask(model, SCORE_PROMPT, body, lambda text: parse_scores(text, len(bullets)))
