"""Extraction answers -> bullets, tolerant of what a small model writes (pure, no I/O).

The requested format is `- [턴 1, 3] 내용`. Also accepted: no sources, other bullet marks
(`*`, `•`, `·`), numbered lines (`1.`, `1)`), a labelled line (`요약: ...`), headers alone
(`장기 기억 후보:`) skipped, and plain sentences when no line is marked at all. Markup is
stripped (ground.strip_markup); bullets that quote environment variable names (NAVER_CLIENT_ID:
a tool failure echoed back, not a fact about the user) are dropped. Whether an item is the
user's own is decided later (candidates.py).
"""

from __future__ import annotations

import re
from typing import Sequence

from langchain_core.messages import BaseMessage

from client.core.context.turns import is_turn_start, text_of
from client.core.memory.ground import strip_markup
from client.core.memory.policy import Bullet, FormatError

_MARK = re.compile(r"^\s*(?:[-*•·‣▪●◦–]|\d{1,2}[.)]|\(\d{1,2}\))(?=\s|\[|$)\s*(?P<rest>.*?)\s*$")
_SOURCES = re.compile(r"^[\[(（【]\s*(?P<src>[^\])）】]*?)\s*[\])）】]\s*[:：-]?\s*(?P<text>.*)$")
_LABEL = re.compile(r"^\s*\**(?:요약|정리|사실|기억|항목|내용|장기\s*기억(?:\s*후보)?|summary|facts?|memory|notes?)\**"
                    r"\s*[:：]\s*(?P<text>.*?)\s*$", re.I)
_HEADER = re.compile(r"^[^:：]{0,40}[:：]\s*$")
_FENCE = re.compile(r"^\s*```")
ENV_NAME = re.compile(r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9](?![A-Za-z0-9_])")  # NAVER_CLIENT_ID, CLOVA_STUDIO_API_KEY
_NONE = re.compile(r"^[\s(\[]*(없음|없습니다|none|nothing|n/?a|-)[\s.)\]]*$", re.I)
_NONE_PHRASE = re.compile(r"(없습니다|없음|no (?:facts?|items?)|nothing to)", re.I)
_SPLIT = re.compile(r"\s+[-*•]\s+(?=[\[(])")  # two bullets on one line: "- [1] a - [2] b"
_TURN_WORD = re.compile(r"^(턴|turn)?\s*\d+$", re.I)
# the prompt's own category names, echoed by a small model instead of a fact
CATEGORIES = {"선호와취향", "선호", "취향", "개인정보", "진행중인일과약속", "진행중인일", "약속", "조건과제약", "조건", "제약"}
MAX_TEXT = 300


def parse_bullets(text: str) -> list[Bullet]:
    """Bullets from an extraction answer; [] for `없음`. FormatError when nothing in it is usable
    (also when every line only echoed a tool error)."""
    lines = [part for ln in (text or "").strip().splitlines() if ln.strip() and not _FENCE.match(ln)
             for part in _SPLIT.split(ln)]
    if not lines or (len(lines) == 1 and _NONE.match(lines[0])):
        return []
    items: list[tuple[str, str]] = []  # (sources text, content)
    plain: list[str] = []
    for ln in lines:
        m = _MARK.match(ln)
        label = _LABEL.match(ln)
        if m and m.group("rest"):
            items.append(_split_sources(m.group("rest")))
        elif label:
            if label.group("text"):
                items.append(_split_sources(label.group("text")))
        elif _SOURCES.match(ln.strip()):
            items.append(_split_sources(ln.strip()))
        elif not _HEADER.match(ln):
            plain.append(ln.strip())
    if not items:  # nothing marked: sentences one per line, unless they only say there is nothing
        items = [("", p) for p in plain if not (_NONE_PHRASE.search(p) and len(p) < 60)]
        if not items and plain and all(_NONE_PHRASE.search(p) for p in plain):
            return []
    out: list[Bullet] = []
    for src, content in items:
        content, tags = strip_markup(content)
        if not content:  # "- [턴 1, vegetarianism]": the fact went inside the brackets
            content = ", ".join(w.strip() for w in re.split(r"[,，]", src) if w.strip() and not _TURN_WORD.match(w.strip()))
        if (not content or _NONE.match(content) or ENV_NAME.search(src) or ENV_NAME.search(content)
                or re.sub(r"\s+", "", content) in CATEGORIES):
            continue
        out.append(Bullet(content[:MAX_TEXT], sorted({int(x) for x in re.findall(r"\d+", src)} | set(tags))))
    if not out and not (items and all(_NONE.match(c.strip()) for _, c in items)):  # "- 없음" is an answer
        raise FormatError(f"no usable line: {lines[0][:60]}")
    return out


def _split_sources(rest: str) -> tuple[str, str]:
    m = _SOURCES.match(rest)
    return (m.group("src"), m.group("text")) if m else ("", rest)


OWN = "own"  # a user message's own words when it also carries a piped stdin body (`git diff | mcp-chat -p "..."`)


def own_words(m: BaseMessage) -> str:
    """What the user wrote in a message: all of it, or only their own line of a `-p` whose
    message also holds piped stdin (the body says nothing about the user)."""
    own = m.additional_kwargs.get(OWN)
    return own if isinstance(own, str) else text_of(m)


def user_turns(rows: Sequence[tuple[int, BaseMessage]]) -> dict[int, str]:
    """Turn number -> the user's own words, for the turns of the session."""
    return {t: own_words(m) for t, m in rows if t and is_turn_start(m)}
