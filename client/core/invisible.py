r"""Characters that show nothing: what masking looks through and the terminal never gets. Pure.

- FORMAT: every format character (Unicode category Cf, as of Unicode 15): the soft hyphen,
  zero-width space/joiners, word joiner and invisible operators, bidirectional controls, the
  BOM, interlinear annotation marks, tag characters (U+E0000 block) and the rest.
- INVISIBLE: FORMAT and the other characters that draw nothing inside a word: the combining
  grapheme joiner, Hangul fillers, Mongolian free variation selectors, Khmer inherent vowels
  and the variation selectors. Secrets are matched with these removed (client/core/secrets.py),
  so a key with zero-width spaces or soft hyphens inside is still the key;
- their escaped forms count as the characters: `\u200b` written as six characters (JSON, Python,
  JavaScript), `\U000e0020`, `\xad`, `\u{200b}`, a JSON surrogate pair (`\udb40\udc20`), and any
  number of backslashes (JSON inside JSON). An error body that writes a key with `\u200b` text
  inside is still the key (issue 50). Escapes of visible characters are text like any other.
"""

from __future__ import annotations

import re

FORMAT = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
          "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
          "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
INVISIBLE = FORMAT + "\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180d\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef"
INVISIBLE_RE = re.compile(f"[{INVISIBLE}]+")
_INVISIBLE_ONE = re.compile(f"[{INVISIBLE}]")
# an escaped character: a JSON surrogate pair first, then the single forms
_ESCAPE = re.compile(r"\\+(?:u([dD][89abAB][0-9a-fA-F]{2})\\+u([dD][c-fC-F][0-9a-fA-F]{2})|u([0-9a-fA-F]{4})"
                     r"|U([0-9a-fA-F]{8})|x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]{1,6})\})")
_EITHER = re.compile(f"[{INVISIBLE}]+|{_ESCAPE.pattern}")


def _escaped_invisible(m: re.Match[str]) -> bool:
    """Whether an _ESCAPE match stands for an INVISIBLE character."""
    high, low, *single = m.groups()
    if high:
        code = 0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low, 16) - 0xDC00)
    else:
        code = int(next(g for g in single if g), 16)
    return code <= 0x10FFFF and bool(_INVISIBLE_ONE.match(chr(code)))


def _runs(text: str) -> list[tuple[int, int]]:
    """Where INVISIBLE characters and their escaped forms sit in `text`."""
    if "\\" not in text:
        return [m.span() for m in INVISIBLE_RE.finditer(text)]
    return [m.span() for m in _EITHER.finditer(text)
            if m.group()[0] != "\\" or _escaped_invisible(_ESCAPE.match(m.group()))]


def visible_view(text: str) -> tuple[str, list[int] | None]:
    """`text` without INVISIBLE characters (nor their escaped forms), and where each kept character
    sits in `text` (None when nothing was removed: the view is the text)."""
    runs = _runs(text)
    if not runs:
        return text, None
    parts: list[str] = []
    kept: list[int] = []
    pos = 0
    for a, b in runs:
        parts.append(text[pos:a])
        kept.extend(range(pos, a))
        pos = b
    parts.append(text[pos:])
    kept.extend(range(pos, len(text)))
    return "".join(parts), kept
