"""The user's own statements, sentence by sentence: memory candidates that need no model (pure).

Only the user's prose counts: what a turn pastes or types for the machine (code, commands, logs,
diffs, listings, a URL alone, a one-word reply) is taken out first (structure.py), and so is a
piped stdin body (parse.own_words: only the user's own line of a `-p`). Every declarative
sentence of what is left is a candidate, verbatim (`사용자의 말: ...`), with
its turn as the source; questions and requests are not, unless they also say something about
the user (`나는 부산에 사는데 맛집 추천해 줘`, `광주에 살고 있는데 ... 추천해 줘`). A leading `기억해 줘:` / `remember:` is cut.
Korean often drops the pronoun (`부산에 살아`), so no "I"/"나는" is required: which sentences
are worth keeping is the usefulness scorer's call (client/engine/memory/scorer.py), which sees
the sentence alone (scoring_text), not the prefix.
"""

from __future__ import annotations

import re
from typing import Sequence

from langchain_core.messages import BaseMessage

from client.core.memory.ground import words
from client.core.memory.parse import ENV_NAME, user_turns
from client.core.memory.policy import Bullet
from client.core.memory.structure import junk, prose

PREFIX = "사용자의 말: "
MAX_STATEMENT = 200
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_REMEMBER = re.compile(r"^\s*(?:(?:꼭\s*)?기억해\s*(?:줘|주세요|둬|두세요)?|참고로|please\s+remember(?:\s+that)?|remember(?:\s+that)?"
                       r"|note(?:\s+that)?|fyi)\s*[:：,.!-]?\s*", re.I)
_SELF = re.compile(r"(^|[\s:,])(나는|난|내가|내|나의|저는|전|제가|제|저의|우리|우리는|우리집)(?=\s|$)"
                   r"|\b(i|i'm|i've|i'd|im|my|mine|me|we|we're|our)\b", re.I)
_QUESTION_EN = re.compile(r"^\s*(how|what|what's|why|when|where|who|which|can|could|would|will|should|do|does|did|is|are"
                          r"|please|tell|give|show|suggest|recommend|explain|write|find|list|help|let's|review|check|fix|scale"
                          r"|convert|translate|summarize|summarise|rewrite|compare|debug|refactor|draft|generate|create|make|plan"
                          r"|look|try|run|add|remove|format)\b", re.I)
_REQUEST_KO = re.compile(r"(줘|줘요|주세요|줄래|줄래요|줄 수 있어|해\s?봐|할까|할까요|을까|을까요|까요|일까|인가요|나요|니|냐|어때|어때요"
                         r"|알려\s?줘|추천해|설명해|찾아\s?줘|검색해|뭐야|뭐지|뭘까|있을까)\s*[.!~]*\s*$")


# a word that asks (어디, 뭐, 누가 ...), not its indefinite forms (어디든, 누구나, 언제나, 왜냐하면)
_ASKS = re.compile(r"(?:^|\s)(?:어디|뭐|뭘|무엇|무슨|누구|누가|언제|왜|어떻게|어느|얼마)(?!든|나|라도|냐)"
                   r"|\b(?:what|where|who|whom|whose|when|why|how|which)\b", re.I)


# a standing instruction is a preference, said as a request: 앞으로 답변은 짧게 해 줘 / Always answer in English
_STANDING = re.compile(r"(?:^|\s)(?:항상|앞으로|언제나|늘|매번|평소에|답변은|대답은|설명은|답은|주석은|커밋\s?메시지는|명령어는|예시는|코드는)"
                       r"|\b(?:always|never|from now on|every time|in (?:the )?future|going forward|by default|for me)\b"
                       r"|\b(?:answers?|replies|responses|explanations?|comments|commit messages|commands|examples)\b", re.I)


# the clause before a request: 광주에 살고 있는데 ... 추천해 줘 / I live in Lisbon, can you ...
_HEAD = re.compile(r"^(?P<head>\S.*?\S)(?:(?:는데|은데|인데|니까|이니까)[\s,]|[,;]\s)")


def sentences(text: str) -> list[str]:
    return [" ".join(s.split()) for s in _SENTENCE.split(text or "") if s.strip()]


def is_request(sentence: str) -> bool:
    s = sentence.strip()
    return s.endswith(("?", "？")) or bool(_QUESTION_EN.match(s) or _REQUEST_KO.search(s))


def statements_of(text: str) -> list[str]:
    """The sentences of one user turn's prose that state something (about the user, or anything)."""
    out: list[str] = []
    for s in sentences(prose(text)):
        s = _REMEMBER.sub("", s).strip()
        if not s or len(s) > MAX_STATEMENT or ENV_NAME.search(s) or not words(s) or junk(s):
            continue
        if _states(s):
            out.append(s)
    return out


def _states(s: str) -> bool:
    """Not a question or request, or one that first (or then) says something (kept whole, with its
    context), a standing instruction (앞으로 답변은 짧게 해 줘: a preference), or a request about the
    user's own things (나는 내일 이사하니까 짐 목록 만들어 줘)."""
    if not is_request(s):
        return True
    head = _HEAD.match(s)
    if head and _says(head.group("head")):
        return True
    tail = re.split(r"[,;]\s+", s, maxsplit=1)
    if len(tail) == 2 and _says(tail[1]):
        return True  # 고수는 빼 줘, 고수 못 먹어
    if s.endswith(("?", "？")):
        return False
    return bool(_STANDING.search(s)) or not _QUESTION_EN.match(s) and bool(_SELF.search(s))


def _says(clause: str) -> bool:
    """A clause before a request that states something: not itself a question
    (내가 어디에 살고, 강아지 이름이 뭐였지? asks twice and says nothing)."""
    return not is_request(clause) and not _ASKS.search(clause) and bool(words(clause))


def self_statements(rows: Sequence[tuple[int, BaseMessage]]) -> list[Bullet]:
    """Candidates from the user's own words, one per sentence: no model, nothing invented."""
    return [Bullet(PREFIX + s, [t]) for t, text in user_turns(rows).items() for s in statements_of(text)]


def scoring_text(text: str) -> str:
    """What the usefulness scorer reads: the user's sentence without the attribution prefix
    (the prefix alone would lift chit-chat over the threshold)."""
    return text[len(PREFIX):] if text.startswith(PREFIX) else text


def junk_item(text: str) -> str | None:
    """The structural kind of a memory item that is not the user's prose (a stored row kept by an
    older version: `사용자의 말: clear`, `사용자의 말: index 5109783..3434951 100644`), or None."""
    return junk(scoring_text(text))
