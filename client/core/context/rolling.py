"""A running summary that only grows by what is new, and never loses what it held.

The model is asked to summarize only the new span; the previous summary is kept as it
was and the new section is appended. What a small model may drop is put back: every
salient user sentence of the span (a first-person fact, a number, a name, a quoted
string, a correction) whose key words the new section lacks is kept verbatim as a note
line. A degenerate answer (empty, "no prior history", a loop, a refusal, an echo of the
request) is refused and asked again once with a reminder; when that one is refused too, the
roll fails (`SummaryUnusable`): the caller keeps the turns verbatim and tries again later, so
no empty or notes-only ("fallback") pair is ever committed. The summary is compressed only
when it exceeds its own budget, and only into a text that still holds every note and every
key word.

No I/O of its own: `ask` sends one plain (tool-less) request and returns the text.

Why this file is longer than most: the steps of one roll (section, notes put back, corrections
marked, refusal and retry, compression that must keep every note) share one invariant, that the
summary never loses what it held, and each step's check is written next to the step it guards.
The rules for what counts as salient, degenerate or a note are already their own modules
(quality.py, notes.py, speakers.py).
"""

from __future__ import annotations

import datetime as _dt
import re
from difflib import SequenceMatcher
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Iterable, Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from client.core.context.budget import estimate_text_tokens
from client.core.context.quality import (Lang, degenerate_reason, detect_lang, fact_score, is_correction, is_question,
                                         key_terms, missing_terms, named_ko_owned, value_terms)
from client.core.context.notes import (HARD_CAP, NOTE_MIN_TOKENS, NOTE_PREFIX, NOTE_SHARE, PERSON_NOTE,  # noqa: F401
                                       SUPERSEDED, _NOTE_RE, bound, note_line, notes_of, pick_notes, spoken)
from client.core.context.speakers import anchor_dates, last_note_date, note_date, participants_of, session_note_of
from client.core.context.summarize import SummaryPlan, chunk_turns, render_turns, span_lang, summarizer_request
from client.core.context.turns import text_of

Ask = Callable[[list[BaseMessage]], Awaitable[str]]

COMPRESS_PROMPT = {
    "ko": "다음 요약을 더 짧게 줄이세요. 이름, 숫자, 날짜, 장소, 선호, 정정된 값은 모두 그대로 남기고 "
          "중복과 군더더기만 없애세요. 줄인 요약문만 출력하세요.",
    "en": "Shorten the following summary. Keep every name, number, date, place, preference and corrected "
          "value exactly; remove only repetition and filler. Answer with the shortened summary only.",
}
SUMMARY_TRIES = 2  # a refused section is asked for once more before the roll fails
ECHO_HINT = {  # after an answer that copied the conversation's lines back
    "ko": "(대화 줄을 그대로 옮기지 말고, '- <이름>은 <무엇>을 했다' 꼴의 3인칭 문장으로 새로 쓰세요.)",
    "en": "(Do not copy the conversation's lines: write new third-person sentences, '- <name> did <what>'.)",
}
RETRY_LINE = {
    "ko": "(위 대화의 사실만 짧은 글머리표 줄로 요약하세요. 대화 내용이 있으니 빈 답이나 거절은 안 됩니다.)",
    "en": "(Summarize the facts of the conversation above in short bullet lines. There is a conversation above: "
          "do not answer that there is none, and do not refuse.)",
}


class SummaryUnusable(Exception):
    """Every answer for a span was refused: nothing is committed, the turns stay verbatim."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__(", ".join(reasons))
        self.reasons = reasons


@dataclass
class Rolled:
    text: str
    rejected: list[str] = field(default_factory=list)  # reasons of refused answers that were asked again
    compressed: bool = False
    covered: int | None = None  # a span cut short: how many of its turns the text covers (None: all)

    def plan(self, plan: SummaryPlan) -> SummaryPlan:
        """`plan` as far as this summary covers it: the turns after a refused span stay verbatim."""
        if self.covered is None:
            return plan
        k = self.covered
        return SummaryPlan(plan.system, plan.previous_summary, plan.to_summarize[:k], [*plan.to_summarize[k:], *plan.keep])


def section_for(span: Sequence[Sequence[BaseMessage]], model_text: str | None, lang: Lang,
                instructions: str = "", names: tuple[str, str] | None = None, when: _dt.date | None = None) -> str:
    """The span's session note (when it starts a session), the model's section (when usable), and
    the salient sentences it dropped, verbatim, as many as fit the span's share (the surest facts
    first: numbers, names, dates, corrections). `instructions`: the summarizer's own prompt, whose
    lines a small model may copy back. `names`: two people talk, and both speakers' sentences count.
    `when`: the session's date (its note's, else the last one before it): relative time words get
    the date they mean."""
    body = _without_questions(model_text or "", instructions)
    header = next((session_note_of(text_of(t[0])) for t in span[:1] if t and isinstance(t[0], HumanMessage)), None)
    said = spoken(span, names)
    people = {n.lower() for n in names or ()}
    candidates = [(who, st) for who, st in said if not body or adds_to(st, body, people) or is_correction(st)]
    cap = max(NOTE_MIN_TOKENS, int(NOTE_SHARE * estimate_text_tokens(render_turns(span, lang, names))))
    if names:  # a chat between two people: a sentence without a value is talk, not a fact to keep verbatim
        candidates = [(who, st) for who, st in candidates if fact_score(st, people) > 0]
    notes = pick_notes(candidates, cap, lang, people)
    lines = ([header] if header and header not in body else []) + ([body] if body else [])
    noted = "\n".join(note_line(st.replace('"', "'"), lang, who) for who, st in notes)
    corrections = [st for _, st in notes if is_correction(st)]
    lines += [mark_superseded(noted, corrections, lang, notes_only=True)] if notes else []
    return anchor_dates("\n".join(lines), note_date(header) or when)


# words two sentences share without being about the same thing ("I've known my neighbours for 4 years,
# since I moved" and "since I started sailing three years ago")
_GENERIC = {"years", "year", "months", "month", "weeks", "week", "days", "since", "time", "times", "ago", "things",
            "thing", "everything", "something", "people", "much", "lots", "pretty", "great", "good", "last", "lately",
            "recently", "still", "even", "chat", "talk", "talked", "going", "doing", "done", "very", "more", "most",
            "yeah", "wow", "hey", "totally", "definitely", "super", "cool", "awesome", "amazing"}


def adds_to(statement: str, body: str, people: Iterable[str] = ()) -> bool:
    """True when `statement` says something the model's lines lack: a value (number, name, date,
    quoted title) they do not hold, or content words enough (two, or a third of its own) that a
    note is worth its tokens; "I finally finished my novel draft" under "- Ada finished her
    novel draft" adds only "finally"."""
    # "강아지 이름은 보리야" under "- 서준은 보리를 산책시킨다": the naming is lost; under "- 강아지: 보리" it is kept
    for name, owner in named_ko_owned(statement).items():
        if not any(name in ln and (re.search(r"이름|제목|별명|\bnamed?\b|\bcalled\b", ln) or (owner and owner in ln))
                   for ln in body.splitlines()):
            return True
    miss = [m for m in missing_terms(statement, body, people) if m.lower() not in _GENERIC]
    if not miss:
        return False
    values = {v.lower() for v in value_terms(statement)}
    if any(m.lower() in values for m in miss):
        return True
    return len(miss) >= 2 or 3 * len(miss) >= len(key_terms(statement))


_DIGIT = re.compile(r"\d")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s*")


def _without_questions(model_text: str, instructions: str = "") -> str:
    """The model's lines minus echoed questions and requests ("- How do I sort a list?") and
    lines copied from the summarizer's instructions ("- names, numbers and dates, places, ..."):
    a small model lists what was asked, which states nothing worth carrying. A line with a
    number stays (it may hold the answer)."""
    kept = []
    for ln in model_text.strip().splitlines():
        ln = _first_sentence(ln)
        bare = _BULLET.sub("", ln).strip()
        if not bare and ln.strip():
            continue  # a bullet with nothing after it
        if bare and not _DIGIT.search(bare) and (is_question(bare) or echoes(bare, instructions)):
            continue
        kept.append(ln)
    return "\n".join(kept).strip()


_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+(?=\S)")
LINE_CHARS = 100  # a summary line longer than this is cut to its first sentence


def _first_sentence(line: str) -> str:
    """A small model's bullet that runs on into advice ("... 이 경우, 다른 음식을 선택하거나 ...")
    is cut to its first sentence; a user's fact the cut loses comes back as a verbatim note
    (section_for checks the key words after the cut)."""
    if len(line) <= LINE_CHARS:
        return line
    return _SENTENCE_END.split(line, maxsplit=1)[0]


def echoes(line: str, instructions: str, share: float = 0.7, run: int = 8) -> bool:
    """True when most of `line` is copied from `instructions` in runs of `run`+ characters
    (case and spacing aside); short lines never count (a name may well appear there)."""
    a = " ".join(instructions.lower().split())
    b = " ".join(line.lower().split())
    if len(b) < 24 or not a:
        return False
    blocks = SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
    return sum(m.size for m in blocks if m.size >= run) / len(b) >= share


def mark_superseded(summary: str, corrections: list[str], lang: Lang, *, notes_only: bool = False) -> str:
    """Lines about what a correction changed ("- Dentist on Tuesday", then "Actually, it moved
    to Thursday") are marked as outdated, not dropped: a small model otherwise answers with
    the first value it reads. A line is about what the correction changed when it shares two key
    words with it, holds a value (a number, a name, a day or date) and the correction brings a
    value it does not hold (the new one).
    Corrections themselves are never marked. `notes_only`: leave model-written lines alone (in
    the correction's own span they may state the new value)."""
    if not corrections:
        return summary
    subjects = [({t.lower() for t in key_terms(c)} - _GENERIC, {v.lower() for v in value_terms(c)}) for c in corrections]
    out = []
    for ln in summary.splitlines():
        s = ln.strip()
        bare = _BULLET.sub("", s)
        note = _NOTE_RE.match(s)
        said = note.group(1) if note else s  # a note is judged by the user's words alone
        words = {t.lower() for t in key_terms(said)} - _GENERIC
        values = {v.lower() for v in value_terms(said)}
        if (s and (note or not notes_only) and not is_correction(said)
                and not bare.startswith(tuple(SUPERSEDED.values()))
                and any(len(words & subj) >= 2 and values and vals - values for subj, vals in subjects)):
            ln = s[: len(s) - len(bare)] + SUPERSEDED[lang] + bare
        out.append(ln)
    return "\n".join(out)


def held_items(summary: str) -> list[str]:
    """What a compression must keep: the notes and the key words of the model-written lines."""
    items = [f"note:{n}" for n in notes_of(summary)]
    for ln in summary.splitlines():
        if not _NOTE_RE.match(ln.strip()):
            items += key_terms(ln)
    return items


def merge_back(compressed: str, original: str) -> str:
    """Append to `compressed` every note of `original` it lacks and every model-written line
    whose key words it lost."""
    out = compressed.strip()
    have = set(notes_of(out))
    for ln in original.splitlines():
        s = ln.strip()
        if not s:
            continue
        m = _NOTE_RE.match(s)
        if m:
            if m.group(1) not in have:
                out += "\n" + s
        elif missing_terms(s, out):
            out += "\n" + s
    return out


async def roll_summary(
    plan: SummaryPlan, ask: Ask, *, chunk_tokens: int, summary_budget: int, focus: str | None = None
) -> Rolled:
    """The previous summary extended by the planned span, compressed only when over budget. A
    chunk whose every answer is refused ends the roll there: the chunks before it are the summary
    (`Rolled.covered`), it and the rest stay verbatim; refused at the first chunk, nothing is."""
    summary = (plan.previous_summary or "").strip()
    rejected: list[str] = []
    lang = span_lang(plan.to_summarize)
    names = participants_of(text_of(plan.system)) if plan.system is not None else None
    covered = 0  # turns of the span folded so far (a preamble counts as one)
    for chunk in chunk_turns(plan.to_summarize, chunk_tokens):
        request = summarizer_request(None, chunk, focus, lang, names)
        try:
            text = await _usable_answer(request, ask, lang, rejected)
        except SummaryUnusable as e:
            if not covered:
                raise
            rejected.extend(e.reasons)  # what came before stands; this chunk and the rest stay verbatim
            break
        covered += len(chunk)
        section = section_for(chunk, text, lang, str(request[0].content), names, last_note_date(summary))
        corrections = [st for _, st in spoken(chunk, names) if is_correction(st)]
        summary = mark_superseded(summary, corrections, lang)  # the section marks its own notes
        summary = f"{summary}\n{section}".strip() if summary else section
    compressed = False
    if estimate_text_tokens(summary) > summary_budget:
        summary, compressed = await _compress(summary, ask, lang, rejected)
    summary = bound(summary, HARD_CAP * summary_budget)
    if not summary.strip():
        raise SummaryUnusable(rejected or ["empty"])
    return Rolled(summary, rejected, compressed, covered if covered < len(plan.to_summarize) else None)


async def _usable_answer(request: list[BaseMessage], ask: Ask, lang: Lang, rejected: list[str]) -> str:
    """The model's section for one span: asked again (with a reminder) when refused; raises
    SummaryUnusable when no answer is usable. An answer left with no line once echoed
    questions and instructions are taken out counts as empty."""
    reasons: list[str] = []
    instructions = str(request[0].content)
    for attempt in range(SUMMARY_TRIES):
        if attempt:
            last = request[-1]
            hint = f" {ECHO_HINT[lang]}" if reasons[-1] == "echo" else ""
            request = [*request[:-1], HumanMessage(content=f"{text_of_request([last])}\n\n{RETRY_LINE[lang]}{hint}")]
        text = (await ask(request)).strip()
        reason = degenerate_reason(text, request_texts=[text_of_request(request)])
        if reason is None and not _without_questions(text, instructions):
            reason = "empty"
        if reason is None:
            rejected.extend(reasons)
            return text
        reasons.append(reason)
    raise SummaryUnusable(reasons)


def text_of_request(request: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in request)


async def _compress(summary: str, ask: Ask, lang: Lang, rejected: list[str]) -> tuple[str, bool]:
    lang = detect_lang([summary]) if lang == "ko" else lang
    body = "\n".join(ln for ln in summary.splitlines() if not _NOTE_RE.match(ln.strip()))
    if not body.strip():
        return summary, False  # only notes: nothing a model may shorten
    request = [SystemMessage(content=COMPRESS_PROMPT[lang]), HumanMessage(content=body)]
    text = (await ask(request)).strip()
    reason = degenerate_reason(text, request_texts=[COMPRESS_PROMPT[lang]])
    if reason:
        rejected.append(reason)
        return summary, False
    kept = merge_back(text, summary)
    if estimate_text_tokens(kept) >= estimate_text_tokens(summary):
        return summary, False
    return kept, True


def is_extension(old: str, new: str) -> bool:
    """True when `new` holds every note and key word of `old` (the invariant tests check)."""
    low = new.lower()
    return all((i[5:] in new) if i.startswith("note:") else (i.lower() in low) for i in held_items(old))
