"""Characters that show nothing: what masking looks through and the terminal never gets. Pure.

- FORMAT: every format character (Unicode category Cf, as of Unicode 15): the soft hyphen,
  zero-width space/joiners, word joiner and invisible operators, bidirectional controls, the
  BOM, interlinear annotation marks, tag characters (U+E0000 block) and the rest.
- INVISIBLE: FORMAT and the other characters that draw nothing inside a word: the combining
  grapheme joiner, Hangul fillers, Mongolian free variation selectors, Khmer inherent vowels
  and the variation selectors. Secrets are matched with these removed (client/core/secrets.py),
  so a key with zero-width spaces or soft hyphens inside is still the key.
"""

from __future__ import annotations

import re

FORMAT = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
          "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
          "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
INVISIBLE = FORMAT + "\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180d\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef"
INVISIBLE_RE = re.compile(f"[{INVISIBLE}]+")


def visible_view(text: str) -> tuple[str, list[int] | None]:
    """`text` without INVISIBLE characters, and where each kept character sits in `text`
    (None when nothing was removed: the view is the text)."""
    runs = [m.span() for m in INVISIBLE_RE.finditer(text)]
    if not runs:
        return text, None
    kept: list[int] = []
    pos = 0
    for a, b in runs:
        kept.extend(range(pos, a))
        pos = b
    kept.extend(range(pos, len(text)))
    return INVISIBLE_RE.sub("", text), kept
