"""The verbatim notes of a rolling summary: their lines, which sentences become one, and the
cut that keeps a summary inside its cap. Pure string functions (client/core/context/rolling.py
uses them)."""

from __future__ import annotations

import re
from typing import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from client.core.context.budget import estimate_text_tokens
from client.core.context.quality import Lang, fact_score, is_correction, salient_statements
from client.core.context.speakers import session_note_of, without_note
from client.core.context.turns import is_synthetic, text_of

NOTE_PREFIX = {"ko": "- 사용자 발언: ", "en": "- User said: "}
PERSON_NOTE = {"ko": "- {name}의 말: ", "en": "- {name} said: "}  # two people (client/core/context/speakers.py)
SUPERSEDED = {"ko": "(정정 전 값) ", "en": "(outdated) "}
_MARKS = "|".join(re.escape(m) for m in SUPERSEDED.values())
_NOTE_RE = re.compile(rf"^- (?:{_MARKS})?(?:사용자 발언|User said|[^\":\n]{{1,60}}의 말|[^\":\n]{{1,60}} said): \"(.*)\"$")
NOTE_SHARE = 0.12  # the verbatim notes of a span take at most this share of its tokens ...
NOTE_MIN_TOKENS = 120  # ... or this many, whichever is more
def note_line(statement: str, lang: Lang, speaker: str | None = None) -> str:
    prefix = PERSON_NOTE[lang].format(name=speaker) if speaker else NOTE_PREFIX[lang]
    return f'{prefix}"{statement}"'


def notes_of(summary: str) -> list[str]:
    """The verbatim statements held as note lines."""
    out = []
    for ln in summary.splitlines():
        m = _NOTE_RE.match(ln.strip())
        if m:
            out.append(m.group(1))
    return out


def spoken(span: Sequence[Sequence[BaseMessage]], names: tuple[str, str] | None) -> list[tuple[str | None, str]]:
    """(speaker, salient sentence) of the span, in order: the user's; with two people, the
    assistant's too (a session note is the section's header, not a statement)."""
    out: list[tuple[str | None, str]] = []
    for t in span:
        for m in t:
            if isinstance(m, HumanMessage) and not is_synthetic(m):
                who = names[0] if names else None
            elif isinstance(m, AIMessage) and names and not m.tool_calls:
                who = names[1]
            else:
                continue
            for st in salient_statements([without_note(text_of(m))]):
                if (who, st) not in out:
                    out.append((who, st))
    return out


def pick_notes(candidates: list[tuple[str | None, str]], cap: int, lang: Lang,
               people: set[str]) -> list[tuple[str | None, str]]:
    """The candidates that fit `cap` tokens, surest facts first, in their order; corrections last."""
    ranked = sorted(range(len(candidates)), key=lambda i: (-fact_score(candidates[i][1], people), i))
    kept, used = set(), 0
    for i in ranked:
        cost = estimate_text_tokens(note_line(candidates[i][1], lang, candidates[i][0]))
        if used + cost > cap and not is_correction(candidates[i][1]):
            continue
        kept.add(i)
        used += cost
    chosen = [candidates[i] for i in sorted(kept)]
    chosen.sort(key=lambda c: is_correction(c[1]))  # stable: corrections move to the end, in their order
    return chosen


HARD_CAP = 2  # times the summary budget: the most a summary may hold, compressed or not


def bound(summary: str, cap: int) -> str:
    """The summary cut to `cap` tokens when a compression could not shrink it (the request must
    still fit, or the whole pair would be dropped): the oldest verbatim notes go first (never a
    correction or a session note), then the oldest lines the model wrote."""
    lines = [ln for ln in summary.splitlines() if ln.strip()]
    if estimate_text_tokens(summary) <= cap:
        return summary
    for notes in (True, False):
        i = 0
        while i < len(lines) and estimate_text_tokens("\n".join(lines)) > cap:
            ln = lines[i].strip()
            if not session_note_of(ln) and not is_correction(ln) and bool(_NOTE_RE.match(ln)) == notes:
                del lines[i]
            else:
                i += 1
    return "\n".join(lines)


