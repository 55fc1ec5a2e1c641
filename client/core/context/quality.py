"""Judging what a small model wrote: language, salient facts, degenerate text, loops.

Pure string functions, no model calls. Used by the rolling summary (what must survive
a summary, and which summaries to refuse) and by the turn (a looping answer is cut).
"""

from __future__ import annotations

import re
import zlib
from typing import Iterable, Literal

Lang = Literal["ko", "en"]

_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_LATIN = re.compile(r"[A-Za-z]")
_SENTENCE = re.compile(r"[^.!?。\n]+[.!?。]*")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
# a quoted string; an apostrophe inside a word ("I'm ... it's") neither opens nor closes one
_QUOTED = re.compile(r"(?<![A-Za-z])[\"“'‘「『]([^\"”'’」』]{2,80})[\"”'’」』](?![A-Za-z])")
_CAPITALIZED = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b")
_SELF_EN = re.compile(r"\b(I|I'm|I've|I'll|my|me|mine|we|our|us)\b", re.I)
_SELF_KO = re.compile(r"(^|\s)(나는|난|내가|내\s|나의|저는|전\s|제가|제\s|저의|우리|저희)")
_CORRECTION = re.compile(r"\b(correction|changed|moved|not anymore|no longer|postponed|rescheduled|"
                         r"pushed back|brought forward|i meant|i was wrong)\b|"
                         r"(사실은|정정|바뀌|바꿨|변경|옮겨|옮겼|아니라|말고|취소|미뤄|미뤘|미루|연기|당겨|당겼|늦춰|늦췄|"
                         r"잘못 말|고쳐|고칠게)", re.I)
# "actually", "instead", "사실" also start small talk ("Yeah actually!", "The soup was actually tasty"):
# a correction only with a value or a negation it changes ("Actually, my sister is Clara", "사실 나 오이 안 먹어")
_WEAK_CORRECTION = re.compile(r"\b(actually|instead)\b|(?<![가-힣])사실(?![가-힣]*(?:이|을|과|와|대로)\b)", re.I)
_NEGATION = re.compile(r"\b(not|no|never|don't|doesn't|didn't|can't|won't|isn't|wasn't|aren't)\b|n't\b|"
                       r"(아니|안\s|않|못\s|못해|없)", re.I)
_QUESTION_KO = re.compile(r"(까|나요|니|냐|가요|죠|어때|알려\s*줘|뭐야|뭐지|해\s*줘|해\s*주세요)[.?!]*$")
_KO_PARTICLES = ("에서는", "으로는", "이라고", "에서", "으로", "이야", "예요", "이에요", "입니다", "이고",
                 "은", "는", "이", "가", "을", "를", "에", "의", "도", "야", "로", "와", "과", "랑", "요")
_STOP_KO = {"기억", "사실", "이름", "우리", "저희", "정말", "그리고", "그런데", "지금", "나는", "저는", "내가", "제가",
            "바뀌었어", "바뀌었어요"}
_STOP_EN = {"the", "and", "for", "that", "this", "with", "have", "from", "about", "what", "your",
            "will", "just", "like", "please", "remember", "also", "some", "them", "they", "there",
            "actually", "name", "live", "is", "really", "been", "were", "was"}
_REQUEST_EN = re.compile(r"^(please\s+)?(tell|give|show|suggest|explain|write|list|help|make|find|recommend|"
                         r"describe|translate|summari[sz]e|can|could|would|will|what|how|why|when|where|who|"
                         r"which|is|are|do|does|let's|say)\b", re.I)
_ACK = re.compile(r"^(?:(?:ok|okay|thanks|thank you|great|cool|nice|sure|yes|no|고마워|감사|좋아|알겠어|네|응)[\W\s]*)+$", re.I)
# "no prior history": a summary that says there is nothing to summarize stands for nothing
_NOTHING = re.compile(r"\b(no|without)\s+(prior|previous|earlier)\s+(history|conversation|context|messages?)\b|"
                      r"\bnothing\s+to\s+summari[sz]e\b|\bno\s+conversation\s+(was\s+)?(provided|given|to)\b|"
                      r"(이전|앞선)\s*(대화|기록|내용)(\s*(내용|기록))?(이|가)?\s*없|요약할\s*(대화|내용)(이|가)?\s*없", re.I)
# a refusal is how an answer starts ("I'm sorry, I can't", "죄송합니다"); "- Ben can't eat coriander",
# "서준은 고수를 먹을 수 없습니다" are facts (a Korean session's summary was refused twice for one)
_REFUSAL = re.compile(r"^\W*(I'?m sorry|I apologi[sz]e|I can ?not|I can't|I am unable|as an AI|sorry\b|"
                      r"죄송|저는 (?:인공지능|AI)|(?:요약|도와|답)[가-힣]* 수 없|할 수 없습니다)", re.I)


def detect_lang(texts: Iterable[str]) -> Lang:
    """English when the text has real English in it (a dozen Latin letters or more) and
    Hangul syllables are under a fifth of the words' weight; Korean otherwise (the default)."""
    joined = " ".join(texts)
    hangul = len(_HANGUL.findall(joined))
    latin = len(_LATIN.findall(joined))
    if latin < 12:
        return "ko"
    return "ko" if hangul >= 0.2 * (hangul + latin / 3) else "en"


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


def _ko_stem(word: str) -> str:
    if len(word) <= 4 and word.endswith(("어", "아", "었어", "했어")):
        return ""  # a verb (살아, 좋아, 바뀌었어): the nouns carry the fact
    for p in _KO_PARTICLES:
        if word.endswith(p) and len(word) - len(p) >= (2 if len(p) == 1 else 1):
            return word[: -len(p)]
    return word


def key_terms(text: str) -> list[str]:
    """Words a faithful summary of `text` must contain: numbers, quoted strings, names, and
    the content words of a short first-person statement."""
    terms: list[str] = []
    terms += _NUMBER.findall(text)
    terms += [q.strip() for q in _QUOTED.findall(text)]
    terms += _CAPITALIZED.findall(text)
    for w in re.findall(r"(?<![0-9])[\uac00-\ud7a3]{2,}", text):  # not units (14일, 3개)
        stem = _ko_stem(w)
        if len(stem) >= 2 and stem not in _STOP_KO:
            terms.append(stem)
    for w in re.findall(r"[A-Za-z]{4,}", text):
        if w.lower() not in _STOP_EN:
            terms.append(w)
    seen: set[str] = set()
    return [t for t in terms if not (t.lower() in seen or seen.add(t.lower()))]


def is_correction(sentence: str) -> bool:
    """A sentence that changes an earlier value: a change word ("moved", "postponed", "바뀌", "미뤘"),
    or "actually"/"instead"/"사실" with a value or a negation (not "Yeah actually!")."""
    if _CORRECTION.search(sentence):
        return True
    return bool(_WEAK_CORRECTION.search(sentence)) and bool(value_terms(sentence) or _NEGATION.search(sentence))


def is_question(sentence: str) -> bool:
    """A question or a request (which the answer, not the summary, takes care of)."""
    s = sentence.strip()
    return s.endswith("?") or bool(_QUESTION_KO.search(s)) or bool(_REQUEST_EN.match(s))


def salient_statements(user_texts: Iterable[str], max_chars: int = 200) -> list[str]:
    """Short user statements worth keeping verbatim: every declarative sentence (a fact, a
    preference, a correction); not questions or requests. Acknowledgements ("ok", "고마워") are not facts."""
    out: list[str] = []
    for text in user_texts:
        for s in sentences(text):
            if len(s) > max_chars or len(s) < 6 or _ACK.match(s):
                continue
            if is_question(s):
                continue
            if s not in out:
                out.append(s)
    return out


def missing_terms(statement: str, summary: str, ignore: Iterable[str] = ()) -> list[str]:
    """Key words of `statement` the summary lacks (`ignore`: lower-case words that do not count,
    e.g. the names of the two people talking)."""
    low, skip = summary.lower(), set(ignore)
    return [t for t in key_terms(statement) if t.lower() not in low and t.lower() not in skip]


_TIME_EN = re.compile(r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|"
                      r"may|june|july|august|september|october|november|december|yesterday|tomorrow|tonight|weekend|"
                      r"(?:last|next|this)\s+(?:week|month|year|night|summer|winter|spring|fall)|"
                      r"(?:a|an|few|couple of|\d+|two|three|four|five|six|ten) (?:years?|months?|weeks?|days?) ago)\b", re.I)
_TIME_KO = re.compile(r"[월화수목금토일]요일|\d+\s*(?:월|일|년|시)|내일|모레|어제|그제|그저께|주말|"
                      r"(?:다음|지난|이번)\s*(?:주|달|해)")


_COUNT_EN = re.compile(r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
                       r"hundred|thousand|dozen|second|third|fourth|fifth|tenth)\b", re.I)
_COUNT_KO = re.compile(r"(?<![가-힣])(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉|열|스무)\s?(?:살|개|마리|명|번|시간|달|년|주|권|잔)")


# a name in Korean has no capital letter: the word after 이름은/제목은 is the value ("이름은 보리야" -> 보리)
_NAMED_KO = re.compile(r"(?:이름|제목|별명)(?:은|이|을)\s*([가-힣A-Za-z0-9]{1,12})")
_COPULA_KO = ("이에요", "이라고", "입니다", "이야", "예요", "이고", "이다", "라고", "이래", "야", "고", "다", "래")


_OWNER_KO = re.compile(r"([가-힣A-Za-z0-9]{1,12}?)(?:의)?\s+(?:이름|제목|별명)(?:은|이|을)\s*([가-힣A-Za-z0-9]{1,12})")


def _bare(word: str) -> str:
    for c in _COPULA_KO:
        if word.endswith(c) and len(word) > len(c):
            return word[: -len(c)]
    return word


def named_ko(text: str) -> list[str]:
    """The names a Korean sentence gives (`이름은 보리야`, `제목은 달빛이고`), without their copula."""
    return [_bare(w) for w in _NAMED_KO.findall(text)]


def named_ko_owned(text: str) -> dict[str, str]:
    """Each Korean name with what it names, when the sentence says so: `고양이 이름은 모찌야` ->
    {"모찌": "고양이"}; a name without an owner word maps to ""."""
    owned = {_bare(name): owner for owner, name in _OWNER_KO.findall(text)}
    return {name: owned.get(name, "") for name in named_ko(text)}


def value_terms(text: str) -> list[str]:
    """The words that carry a value: numbers (also in words: "three years", "세 살"), quoted strings,
    names (capitalized, or named in Korean), days, dates and times."""
    return ([*_NUMBER.findall(text), *_COUNT_EN.findall(text), *_COUNT_KO.findall(text),
             *(q.strip() for q in _QUOTED.findall(text)), *_CAPITALIZED.findall(text), *named_ko(text),
             *_TIME_EN.findall(text), *_TIME_KO.findall(text)])


# what someone likes, loves or cannot have, and what they do for a living: asked about later
_PREFERENCE = re.compile(r"\b(?:love[sd]?|enjoy(?:s|ed)?|prefer(?:s|red)?|favou?rites?|hate[sd]?|can't stand|allergic|"
                         r"afraid of|fan of|passion(?:ate)? (?:for|about)|work(?:s|ed|ing)? (?:as|at|for)|my job)\b|"
                         r"좋아|싫어|즐겨|알레르기|못 먹|최애|직업|(?:으로|로|에서) 일하", re.I)
# what someone is working on, plans or who they are (goals, studies, status): asked about later too
_PURSUIT = re.compile(r"\b(?:research(?:ing|ed)|stud(?:y|ying|ied)|learn(?:ing|t|ed)|plann?(?:ing|ed) (?:to|on)|"
                      r"going to|applying|looking into|thinking (?:about|of)|dream(?:ing)? of|goal is|"
                      r"I'?m (?:single|married|divorced|engaged|pregnant|retired)|as an? \w+ (?:woman|man|person))\b|"
                      r"준비하|공부하|배우|알아보|계획|하려고|할 거|결혼했|이혼|미혼|약혼", re.I)
# an enumeration ("jazz and folk records", "joy, relief, some worry"): several things at once
_LIST_PAIR = re.compile(r"\b([A-Za-z][\w-]{2,}),? (?:and|or|&) ([A-Za-z][\w-]{2,})\b")
_LIST_KO = re.compile(r"[가-힣]{2,}, [가-힣]{2,}")
_NOT_ITEMS = {"and", "the", "that", "this", "then", "than", "you", "your", "they", "them", "she", "him", "her", "his",
              "its", "was", "were", "are", "have", "has", "had", "but", "not", "too", "all", "out", "really", "just",
              "very", "can", "will", "would", "also", "more", "some", "much", "one", "did", "does", "get", "got", "yeah",
              "totally", "thanks", "thank", "here", "there", "now", "well", "what", "how", "who", "when", "where",
              "which", "i", "i'm", "i've", "i'll", "we", "we're", "you're", "it", "it's", "that's", "so", "oh", "wow",
              "hey", "yes", "no", "sure", "ok", "okay", "though", "even", "if", "because", "which", "like", "for", "to"}


def lists_things(sentence: str) -> bool:
    """True when the sentence names several things side by side (an enumeration): "X and Y",
    or three comma-separated parts of a few words each ("cycling, baking, or playing my flute")."""
    if _LIST_KO.search(sentence):
        return True
    if any(a.lower() not in _NOT_ITEMS and b.lower() not in _NOT_ITEMS for a, b in _LIST_PAIR.findall(sentence)):
        return True
    parts = [p.split() for p in re.split(r"[,;]", sentence)]
    items = [bool(p) and len(p) <= 4 and p[0].lower().strip("'\"-") not in _NOT_ITEMS for p in parts[1:]]
    return any(x and y for x, y in zip(items, items[1:]))


def fact_score(sentence: str, people: Iterable[str] = ()) -> int:
    """How surely a sentence states a fact worth keeping word for word: its values (up to three;
    the names of the two people talking do not count), a time (counted again: when something
    happened), a correction, a first-person statement, a preference (likes, loves, is allergic
    to) or a pursuit (researching, planning to, studying; single, married), an enumeration of things."""
    skip = set(people)
    values = {v.lower() for v in value_terms(sentence)}
    values = {v for v in values if not any(p.startswith(v) for p in skip)}  # "Mel" for Melanie: a greeting
    self_ = bool(_SELF_EN.search(sentence) or _SELF_KO.search(sentence))
    kind = bool(_PREFERENCE.search(sentence) or _PURSUIT.search(sentence)) or lists_things(sentence)
    when = bool(_TIME_EN.search(sentence) or _TIME_KO.search(sentence))  # when it happened: asked for later
    return min(len(values), 3) + 2 * is_correction(sentence) + self_ + kind + when


# -- degenerate text -----------------------------------------------------------
def repetition_score(text: str) -> float:
    """Compressed size / raw size (UTF-8): a loop compresses far better than prose."""
    raw = text.encode("utf-8")
    return len(zlib.compress(raw, 9)) / max(1, len(raw))


def repeated_sentence(text: str, times: int = 3) -> str | None:
    counts: dict[str, int] = {}
    for s in sentences(text):
        key = re.sub(r"\W+", " ", s).strip().lower()
        if len(key) < 6:
            continue
        counts[key] = counts.get(key, 0) + 1
        if counts[key] >= times:
            return s
    return None


_LOOP = re.compile(r"(.{6,200}?)\1{3,}", re.S)


def is_loop(text: str) -> bool:
    t = text.strip()
    if repeated_sentence(t) or _LOOP.search(t):
        return True
    return len(t.encode()) > 600 and repetition_score(t) < 0.12


def cut_loop(text: str) -> str | None:
    """The text up to the end of the first occurrence of what it repeats, or None when
    it is not a loop."""
    if not is_loop(text):
        return None
    rep = repeated_sentence(text)
    if rep:
        first = text.find(rep)
        if first >= 0:
            return text[: first + len(rep)].rstrip() + " …"
    m = _LOOP.search(text)
    if m:
        return (text[: m.start()] + m.group(1)).rstrip() + " …"
    return text[: max(200, len(text) // 4)].rstrip() + " …"


def degenerate_reason(text: str, *, request_texts: Iterable[str] = ()) -> str | None:
    """Why a summary must not be stored: empty (or saying there is nothing to summarize), a loop,
    a refusal, or an echo of the request."""
    t = text.strip()
    if len(t) < 4 or (len(t) < 200 and _NOTHING.search(t)):
        return "empty"
    if is_loop(t):
        return "repetition"
    if len(t) < 300 and _REFUSAL.search(t):
        return "refusal"
    lines = [ln.strip() for ln in t.splitlines() if ln.strip()]
    req_lines = {ln.strip() for r in request_texts for ln in r.splitlines() if len(ln.strip()) >= 6}
    if lines and req_lines:
        echoed = sum(1 for ln in lines if ln in req_lines)
        if echoed / len(lines) >= 0.6:
            return "echo"
    markers = ("[대화]", "[Conversation]", "[이전 요약]", "요약가입니다", "You summarize")
    if any(mk in t for mk in markers):
        return "echo"
    return None
