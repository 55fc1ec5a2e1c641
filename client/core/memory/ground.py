"""Is a memory candidate the user's own words? Markup stripped, prompt echoes caught (pure).

A small model's extraction answer mixes three kinds of text: facts the user stated, things only
the assistant said (a place it made up, a suggestion), and pieces of the request itself (the
format line, an example). Only the first belongs in memory. The test is lexical, so it needs
no model: a candidate's content words are looked up in the user's turns and in the assistant's.

- a word is the user's when a user turn has it (Korean: after the particle or ending is cut,
  so 민지이다 matches 민지야; English: a light suffix cut, so daughters matches daughter);
- a word only the assistant wrote is borrowed; a word nobody wrote is the extractor's own
  (a paraphrase, or an invention of its own);
- grounded: at least one of the user's words, borrowed words at most half as many, own words
  at most twice as many, and no word in a script the user never wrote (使用자가: a slip of the
  extractor's). Framing words (사용자, user, 이름, name, ...) and greetings count for nothing;
  a one-letter Korean stem (딸, or a verb's root) counts only for the candidate.
Which of the user's words ground an item (their statements, not their questions) is the caller's
choice (candidates.py).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Sequence

from client.core.memory.policy import similarity

# longest first: the first suffix that leaves a stem of 2+ characters is cut (one cut per word)
_KO_SUFFIXES = sorted({
    "에서는", "에게서", "으로는", "이라고", "이라는", "이라서", "이에요", "입니다", "이었다", "이었어", "이거든",
    "이니까", "이지만", "에서", "에게", "한테", "께서", "으로", "이랑", "하고", "까지", "부터", "보다", "처럼",
    "마다", "라고", "라는", "라서", "이고", "이며", "이다", "이야", "이요", "예요", "에요", "이고요", "이에",
    "는데", "은데", "인데", "이나", "거든", "이지", "였어", "였다", "이라", "이는", "이가", "이를", "이의",
    "은", "는", "이", "가", "을", "를", "에", "의", "도", "만", "로", "와", "과", "랑", "야", "다", "고",
    "며", "요", "께", "나", "지", "라",
}, key=len, reverse=True)
_KO_SUFFIX_SET = frozenset(_KO_SUFFIXES)
_KO_ONE = frozenset("은는이가을를에의도만로와과랑야다고며요지")
_EN_SUFFIXES = ("'s", "’s", "ing", "ed", "es", "s")
# words that frame a fact but are not one: they count for nothing either way
STOP = frozenset("""
사용자 사용자님 유저 고객 님 그 그녀 그는 그의 저 제 나 내 우리 것 수 등 및 또는 그리고 또한 현재 있다 없다 있음 없음
있는 없는 하다 한다 했다 한 함 중 때 정보 대화 턴 내용 항목 사실 관련 대한 대해 통해 위해 말 말했다 말함 언급 언급했다
이름 이름이 이름은 이름을 번호 씨 않다 않는 않는다 않음 안 못 turno 라는 라고 것을 것이 하는 하며 하고 있고 있으며 합니다 했습니다 있습니다 없습니다
the a an and or but of to in on at for with by from as is are was were be been being am has have had do does did
user user's users he she they them his her their i me my mine we our you your it its this that these those there
name named names called call number numbers who which what when where why how not no yes also currently said says mentioned
stated noted remember remembers turn fact facts item content
안녕 안녕하세요 반가워 반가워요 고마워 고마워요 감사 감사해 감사합니다 네 응
hi hello hey thanks thank ok okay lol way
""".split())
_TOKEN = re.compile(r"\d+|[a-z]+(?:['’][a-z]+)?|[가-힣]+|[^\W\d_a-z가-힣]+")
_HANGUL = re.compile(r"^[가-힣]+$")
_JAMO = re.compile(r"^[\u1100-\u11ff\u3130-\u318f]+$")


def _normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _stem(token: str) -> str:
    if _HANGUL.match(token):
        for suf in _KO_SUFFIXES:  # a 2+ letter stem first (서연이 -> 서연), else one letter (딸이 -> 딸)
            if token.endswith(suf) and len(token) - len(suf) >= 2:
                return token[: -len(suf)]
        if len(token) == 2 and token[1] in _KO_ONE:
            return token[0]
        return token
    if token[0].isascii() and token[0].isalpha():
        for suf in _EN_SUFFIXES:
            if token.endswith(suf) and len(token) - len(suf) >= 3:
                return token[: -len(suf)]
    return token


@dataclass(frozen=True)
class Word:
    raw: str
    stem: str

    @property
    def weak(self) -> bool:
        """One letter of Korean (딸, 집; also a verb's root, 먹, 살): evidence when the user
        has it, never counted against a candidate."""
        return len(self.stem) < 2 and not self.stem.isdigit()

    @property
    def forms(self) -> tuple[str, ...]:
        return (self.raw, self.stem) if self.raw != self.stem else (self.raw,)


def words(text: str) -> list[Word]:
    """Content words of a text, in order, once each; framing words left out."""
    out: list[Word] = []
    seen: set[str] = set()
    for tok in _TOKEN.findall(_normalize(text)):
        if tok in STOP or tok in _KO_SUFFIX_SET or _JAMO.match(tok):  # 4817이다: a particle; ㅋㅋ, ㅠㅠ
            continue
        stem = _stem(tok)
        if stem in STOP or stem in seen or (len(tok) < 2 and not tok.isdigit()):
            continue
        seen.add(stem)
        out.append(Word(tok, stem))
    return out


def _match(a: str, b: str) -> bool:
    if a == b:
        return True
    if a.isdigit() or b.isdigit() or min(len(a), len(b)) < 2:
        return False
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if _HANGUL.match(short) and _HANGUL.match(long_):
        return len(short) >= 2 and short in long_  # 해운대 in 부산해운대
    return len(short) >= 4 and long_.startswith(short)  # teach / teacher, vegetarian / vegetarianism


class Vocabulary:
    """The words of some texts (the user's turns, the assistant's), for lookups."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.forms: set[str] = set()
        for t in texts:
            for w in words(t):
                self.forms.update(w.forms)
        self.scripts = {_script(f) for f in self.forms}

    def has(self, word: Word) -> bool:
        if any(f in self.forms for f in word.forms):
            return True
        return any(_match(f, g) for f in word.forms for g in self.forms)


@dataclass(frozen=True)
class Grounding:
    user: tuple[str, ...]  # words the user wrote
    borrowed: tuple[str, ...]  # words only the assistant wrote
    own: tuple[str, ...]  # words nobody in the conversation wrote
    foreign: bool = False  # a script the user never wrote (使用자가: the extractor's slip)

    @property
    def grounded(self) -> bool:
        u = len(self.user)
        return u >= 1 and not self.foreign and 2 * len(self.borrowed) <= u and len(self.own) <= 2 * u


def _script(word: str) -> str:
    c = word[0]
    return "hangul" if "가" <= c <= "힣" else "latin" if c.isascii() else "other"


def grounding(text: str, user: Vocabulary, assistant: Vocabulary) -> Grounding:
    u: list[str] = []
    a: list[str] = []
    o: list[str] = []
    foreign = False
    for w in words(text):
        if user.has(w):
            u.append(w.stem)
        elif not w.weak:
            (a if assistant.has(w) else o).append(w.stem)
            foreign = foreign or (_script(w.stem) == "other" and "other" not in user.scripts)
    return Grounding(tuple(u), tuple(a), tuple(o), foreign)


def support(text: str, source: str) -> float:
    """Share of the text's content words found in `source` (0 when it has none)."""
    ws = words(text)
    if not ws:
        return 0.0
    vocab = Vocabulary([source])
    return sum(vocab.has(w) for w in ws) / len(ws)


# -- markup -----------------------------------------------------------------------------
_LEAD = re.compile(r"^\s*(?:[-*•·‣▪●◦–>]+|\d{1,2}[.)]|\(\d{1,2}\))\s+|^\s*[-*•·]+(?=\[)")
_TAG = re.compile(r"[\[(（【]\s*(?:(?:턴|turn|turno|발화|출처|근거|source|sources?)\s*[:：]?\s*)?\d{1,3}"
                  r"(?:\s*(?:[,，~\-–]|and|및|와|,?\s*(?:턴|turn))\s*\d{1,3})*\s*(?:번)?\s*[\])）】]", re.I)
_TAG_WORDS = re.compile(r"[\[(（【]\s*(?:턴|turn|turno)\s*[^\])）】]{0,40}[\])）】]", re.I)
_TRAILER = re.compile(r"\s*[\[(（]?\s*(?:출처|근거|source|sources?)\s*[:：][^\])）]*[\])）]?\s*$", re.I)
_TURN_PREFIX = re.compile(r"^\s*(?:턴|turn)\s*\d{1,3}(?:\s*[,~\-]\s*\d{1,3})*\s*[:：.)-]\s*", re.I)
_QUOTES = "\"'`“”‘’「」『』«»"
_EMPH = re.compile(r"\*\*|__|`+")
_SPACES = re.compile(r"\s+")
_DANGLING = re.compile(r"^[\s:：\-–,.;]+|[\s:：\-–,;]+$")
_ELLIPSIS = re.compile(r"\s*(?:…|\.\.\.)\s*$")
TURN_NUMBER = re.compile(r"\d{1,3}")
SAME_LINE = 0.8  # bigram similarity of an item to a line of the request: a copy


def strip_markup(text: str) -> tuple[str, list[int]]:
    """The bare text of a candidate and the turn numbers its tags named: bullet marks (also
    nested), turn tags anywhere (`[ TURN 2, 3]`, `(턴 1)`), `출처:` trailers, emphasis and
    quotes around the whole are removed."""
    turns: set[int] = set()
    s = _SPACES.sub(" ", text or "").strip()
    for _ in range(4):  # nested marks: "1. - [턴 2] - ..."
        before = s
        s = _LEAD.sub("", s)
        m = _TURN_PREFIX.match(s)
        if m:
            turns.update(int(x) for x in TURN_NUMBER.findall(m.group(0)))
            s = s[m.end():]
        if s == before:
            break
    for pat in (_TAG, _TAG_WORDS):
        for m in pat.finditer(s):
            turns.update(int(x) for x in TURN_NUMBER.findall(m.group(0)))
        s = pat.sub(" ", s)
    s = _TRAILER.sub("", s)
    s = _EMPH.sub("", s)
    s = _ELLIPSIS.sub("", _SPACES.sub(" ", s).strip())
    s = _DANGLING.sub("", s).strip()
    while len(s) >= 2 and s[0] in _QUOTES and s[-1] in _QUOTES:
        s = s[1:-1].strip()
    return s, sorted(turns)


def is_echo(text: str, prompt_lines: Sequence[str], user: Vocabulary | None = None, threshold: float = 0.6) -> bool:
    """The candidate repeats a line of the request (its format line, an example) rather than the
    conversation: most of its words are that line's, and some of those the user never wrote
    (an example that shares one word with the conversation is still an echo; a fact of the user's
    that happens to read like an example is not)."""
    ws = words(text)
    if not ws:
        return True  # nothing but framing words and marks: "- [턴 번호, ...] 내용"
    for line in prompt_lines:
        if similarity(text, strip_markup(line)[0]) >= SAME_LINE:  # the example word for word
            return True
        vocab = Vocabulary([line])
        hits = [w for w in ws if vocab.has(w)]
        if len(hits) / len(ws) >= threshold and (user is None or not all(user.has(w) for w in hits)):
            return True
    return False
