"""The two UI tables say the same things: the same keys and fields, English counted nouns in the
right number, and no Korean left in the English screens (/help included)."""

from __future__ import annotations

import re
import string

from client.ui import i18n

HANGUL = re.compile(r"[\uac00-\ud7a3]")
# English words that end in "s" and may follow a number: not plurals
NOT_PLURAL = {"is", "was", "has", "does", "this", "its", "us", "as", "s"}
SPEC = re.compile(r"\{\w+:# ([^|}]+)\|# ([^}]+)\}")  # {n:# turn|# turns}


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def renders(key: str, value: object) -> list[str]:
    """The English line once per count field, that field set to `value` and the others to a mark
    that is no word (`{est}{n} tokens` gives `·1 tokens`)."""
    i18n.set_lang("en")
    try:
        specs = {name: spec for _, name, spec, _ in string.Formatter().parse(i18n.EN[key]) if name}
        empty = {name: 0 if spec and "|" not in spec else "·" for name, spec in specs.items()}  # {delay:.1f}
        return [i18n.t(key, **{**empty, name: value}) for name in specs if name in count_fields()]
    finally:
        i18n.set_lang("ko")


KOREAN_COUNTER = re.compile(r"\{(\w+)\}\s?(?:턴|개|건|토큰|번|일|분|시간|글자|회|명|줄)")


def count_fields() -> set[str]:
    """The fields that hold a count: those a Korean line follows with a counter (`{turns}턴`), those
    an English line gives a plural form, and `n` (a `{cmd}` before a verb, `{cmd} works`, is none)."""
    korean = {m.group(1) for text in i18n.KO.values() for m in KOREAN_COUNTER.finditer(text)}
    english = {name for text in i18n.EN.values() for _, name, spec, _ in string.Formatter().parse(text) if spec and "|" in spec}
    return {"n", "count"} | korean | english


def counted_nouns() -> set[str]:
    """Every singular noun a plural form names in the English table (`turn` of `{n:# turn|# turns}`)."""
    return {m.group(1).split()[-1] for text in i18n.EN.values() for m in SPEC.finditer(text)}


def test_both_tables_have_the_same_keys_and_fields() -> None:
    assert set(i18n.KO) == set(i18n.EN)
    differ = {k: (fields(i18n.KO[k]), fields(i18n.EN[k])) for k in i18n.KO if fields(i18n.KO[k]) != fields(i18n.EN[k])}
    assert not differ


def test_english_counts_agree_with_their_nouns() -> None:
    """One of a noun is singular, two are plural: `1 turns`, `2 turn` or `turn(s)` fail."""
    nouns, wrong = counted_nouns(), []
    for key, text in i18n.EN.items():
        if re.search(r"(?<!http)\(s\)", text):
            wrong.append(text)
        for one in renders(key, 1):
            wrong += [one for m in re.finditer(r"(?<![\w.,])1 (?:more |old |earlier |new )?([a-z]+)\b", one)
                      if m.group(1) not in NOT_PLURAL and m.group(1).endswith("s")]
        for two in renders(key, 2):
            wrong += [two for m in re.finditer(r"(?<![\w.,])2 (?:more |old |earlier |new )?([a-z]+)\b", two)
                      if m.group(1) in nouns]
    assert not wrong


def test_plural_forms_render() -> None:
    i18n.set_lang("en")
    try:
        assert i18n.t("resumed", turns=1) == "Continuing the earlier conversation (1 turn)."
        assert i18n.t("rewound", n=1, kept=3) == "Rewound the last turn: the next request holds the first 3 turns only."
        assert i18n.t("tool_items", n="1") == "1 result"
        assert i18n.t("too_long", tokens="1,234", budget=10).startswith("Message too long: about 1,234 tokens")
    finally:
        i18n.set_lang("ko")
    assert i18n.t("resumed", turns=1) == "이전 대화 1턴을 이어갑니다."


def test_no_korean_in_the_english_screens() -> None:
    from client.ui.slash.table import help_text

    assert not [k for k, v in i18n.EN.items() if HANGUL.search(v)]
    i18n.set_lang("en")
    try:
        assert not HANGUL.search(help_text()), help_text()
    finally:
        i18n.set_lang("ko")
