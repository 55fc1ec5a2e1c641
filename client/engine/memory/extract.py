"""The two plain requests that turn a finished session into scored bullets."""

from __future__ import annotations

from typing import Any, Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from client.core.context import is_synthetic, text_of
from client.core.memory.parse import ENV_NAME, clean, parse_bullets, self_statements
from client.core.memory.policy import Bullet, FormatError, parse_scores

EXTRACT_PROMPT = (
    "당신은 대화 기록에서 장기 기억 후보를 뽑는 도우미입니다. 아래 대화에서 이 사용자와의 다음 대화에 "
    "도움이 될 만한 사실을 짧은 문장 항목으로 뽑으세요: 선호와 취향, 개인 정보, 진행 중인 일과 약속, "
    "조건과 제약. 각 항목에 근거가 된 턴 번호를 붙이세요.\n"
    "형식(이 형식만 출력): 한 줄에 하나씩 `- [턴 번호, ...] 내용`. 뽑을 것이 없으면 `없음` 한 줄.\n"
    "예시:\n- [턴 1] 사용자는 채식주의자라 고기를 먹지 않는다.\n- [턴 2, 3] 사용자는 다음 주 목요일에 부산으로 출장을 간다."
)
SCORE_PROMPT = (
    "다음 항목 각각이 이 사용자와의 다음 대화에 도움이 될 가능성(유용성)을 0에서 1 사이 점수로 매기세요. "
    "선호, 개인 정보, 진행 중인 일은 높게, 일회성 잡담이나 그때만 필요한 정보는 낮게.\n"
    "형식(이 형식만 출력): 한 줄에 하나씩 `번호: 점수` (예: `1: 0.8`), 모든 항목에 대해."
)
RETRY_NOTE = "\n\n앞선 답이 형식에 맞지 않았습니다. 형식을 정확히 지켜 다시 답하세요."
MAX_SESSION_CHARS = 24_000  # a session longer than this is cut from the front


def render_session(rows: Sequence[tuple[int, BaseMessage]]) -> str:
    """The session as `[턴 N] 사용자/어시스턴트:` lines. Tool results never go in, nor an answer
    given after a failed tool call or one naming environment variables: those retell tool
    errors (missing keys), never facts about the user."""
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
            lines.append(f"[턴 {turn}] 사용자: {text_of(m)}")
        elif isinstance(m, AIMessage) and not after_error and not ENV_NAME.search(text_of(m)):
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


async def extract_bullets(model: Any, rows: Sequence[tuple[int, BaseMessage]],
                          secrets: Sequence[str] = ()) -> list[Bullet]:
    session = render_session(rows)
    if not session:
        return []
    try:
        return clean(await _ask(model, EXTRACT_PROMPT, session, parse_bullets), rows, secrets)
    except FormatError:  # twice nothing usable (a small model): the user's own words instead
        return clean(self_statements(rows), rows, secrets)


async def score_bullets(model: Any, bullets: Sequence[Bullet]) -> list[float]:
    body = "\n".join(f"{i}. {b.text}" for i, b in enumerate(bullets, 1))
    return await _ask(model, SCORE_PROMPT, body, lambda text: parse_scores(text, len(bullets)))
