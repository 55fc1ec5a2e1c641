"""A scripted Korean conversation with tool turns, deterministic, any length."""

from __future__ import annotations

TOPICS = [
    ("제주 여행", "3박 4일 일정으로 렌터카 없이 다닐 수 있는 코스를 짜 줘. 예산은 1인 60만 원이야."),
    ("김치찌개", "돼지고기 대신 참치로 끓이고 싶은데 간을 어떻게 맞추면 좋을까? 4인분 기준으로 알려 줘."),
    ("파이썬 비동기", "asyncio에서 gather와 TaskGroup의 차이를 예제와 함께 설명해 줘. 예외 처리 차이도."),
    ("러닝", "10km를 55분 안에 뛰고 싶어. 지금은 62분 정도야. 8주 훈련 계획을 세워 줘."),
    ("이사", "다음 달 15일에 성수동으로 이사해. 전입신고와 인터넷 이전은 언제 하면 돼?"),
    ("독서", "올해 읽은 책이 12권인데 소설 위주였어. 비문학 입문서로 세 권만 추천해 줘."),
    ("가계부", "월급 320만 원에서 고정비가 140만 원이야. 저축 비율을 40%로 맞추려면?"),
]
FOLLOW_UPS = [
    "좀 더 자세히 설명해 줄래?",
    "그중에서 가장 중요한 것 하나만 고르면 뭐야?",
    "방금 말한 내용을 표로 정리해 줘.",
    "내가 처음에 말한 조건을 다시 확인해 줘.",
    "비슷한 상황에서 흔히 하는 실수는 뭐가 있어?",
]


def message(i: int) -> str:
    """The i-th user line (1-based). Every 7th line asks for a web search."""
    topic, ask = TOPICS[(i - 1) // 5 % len(TOPICS)]
    if i % 7 == 0:
        return f"{topic} 관련 최신 정보를 검색해서 알려 줘."
    if (i - 1) % 5 == 0:
        return f"[{topic}] {ask}"
    return f"[{topic}] {FOLLOW_UPS[(i - 1) % len(FOLLOW_UPS)]}"


def script(n: int) -> list[str]:
    return [message(i) for i in range(1, n + 1)]
