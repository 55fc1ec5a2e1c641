"""LoCoMo questions and scores (bench/locomo.py): which questions, early or late, token F1."""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass
from typing import Any

_EVIDENCE = re.compile(r"(?<![\w:])D(\d+):\d+(?![\w:])")  # `D3:11`; not `D:11:26`, not `D`
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_KO_TAIL = ("에서는", "으로는", "이에요", "입니다", "이었어", "이었다", "였어요", "예요", "이야", "에서", "으로", "이다",
            "은", "는", "이", "가", "을", "를", "에", "의", "도", "로", "와", "과", "야", "요")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
SCORED = (1, 2, 3, 4)  # category 5 (adversarial) has no answer in the conversation: not asked


@dataclass(frozen=True)
class Question:
    question: str
    gold: Any  # the data's answer, unchanged (a string or a number)
    category: int
    sessions: tuple[int, ...]
    early: bool


def evidence_sessions(evidence: Any) -> tuple[int, ...] | None:
    """The sessions a question's evidence ids (`D3:11`) name. Every well-formed id counts, also
    several in one string (`'D8:6; D9:17'`); a malformed one (`'D'`, `'D:11:26'`) is skipped, not
    the question. None when no id is readable."""
    if not isinstance(evidence, list):
        return None
    out = {int(m.group(1)) for e in evidence for m in _EVIDENCE.finditer(str(e))}
    return tuple(sorted(out)) or None


def pick_questions(qa: list[dict], sessions_used: int, n: int) -> list[Question]:
    """Up to `n` scored questions whose evidence lies in the first `sessions_used` sessions, evenly
    spread over the data's order (which follows the conversation). `early`: evidence wholly in the
    first half of those sessions."""
    pool = []
    for item in qa:
        cat, ss = item.get("category"), evidence_sessions(item.get("evidence"))
        if cat not in SCORED or ss is None or max(ss) > sessions_used or "answer" not in item:
            continue
        pool.append(Question(str(item["question"]), item["answer"], int(cat), ss, max(ss) <= sessions_used / 2))
    if len(pool) <= n:
        return pool
    step = len(pool) / n
    return [pool[int(i * step)] for i in range(n)]


def normalize(text: str, lang: str = "en") -> list[str]:
    """SQuAD's normalization (lower case, no punctuation, no articles, single spaces) as tokens;
    a Hangul token also loses one trailing particle or copula (`모찌예요` -> `모찌`)."""
    t = str(text).lower()
    t = "".join(ch for ch in t if ch not in set(string.punctuation))
    t = _ARTICLES.sub(" ", t)
    tokens = t.split()
    if lang == "ko":
        tokens = [_ko(tok) for tok in tokens]
    return [tok for tok in tokens if tok]


def _ko(tok: str) -> str:
    if not _HANGUL.search(tok):
        return tok
    for tail in _KO_TAIL:
        if tok.endswith(tail) and len(tok) > len(tail):
            return tok[: -len(tail)]
    return tok


def f1(prediction: str, gold: Any, lang: str = "en") -> float:
    p, g = normalize(prediction, lang), normalize(str(gold), lang)
    if not p or not g:
        return float(p == g)
    same = sum((Counter(p) & Counter(g)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)
