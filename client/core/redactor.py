"""The masking rule over a fixed set of secrets: `Redactor` (client/core/secrets.py knows which).

Every occurrence of a secret of MIN_LEN or more characters, and every run of FRAGMENT or more
consecutive characters of one, becomes MASK; overlapping or touching matches become one mask.
Matching runs on the text's visible view (client/core/invisible.py), and each secret is also
looked for in its base64 and hex forms (client/core/secret_forms.py).
"""

from __future__ import annotations

import re
from typing import Iterable

from client.core.config import MASK
from client.core.invisible import visible_view
from client.core.secret_forms import encoded_forms

# Shorter values are not credentials and would mask ordinary words ("1", "on", "dev").
MIN_LEN = 4
FRAGMENT = 12  # a run this long of a known secret is masked wherever it appears
_ANCHOR = FRAGMENT // 2  # see Redactor
CACHE_FROM, CACHE_SIZE = 64, 4096  # texts this long are remembered masked (Redactor), this many at most


def keep(values: Iterable[str]) -> list[str]:
    """The values worth masking: no duplicates, none shorter than MIN_LEN, longest first."""
    return sorted({v for v in values if v and len(v) >= MIN_LEN}, key=lambda v: (-len(v), v))


class Redactor:
    """Masks a fixed set of secrets (the rule in the module's docstring); build it once.

    Matching runs on the text's visible view (client/core/invisible.py: format and other
    invisible characters removed) and maps each match back to the original span, so a key
    with zero-width spaces or soft hyphens inside is masked whole, those characters with it.
    Each secret is also looked for in its base64 and hex forms (client/core/secret_forms.py).

    Pieces are found by sampling the text, not by searching for every secret: a run of FRAGMENT
    or more characters covers a text position that is a multiple of ANCHOR with a whole ANCHOR-gram
    of the run after it, so looking up every ANCHOR-th gram of the text among all the grams of the
    secrets finds each run (then widened both ways), in time linear in the text whatever the secrets;
    only stretches made of the secrets' characters are looked at."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = keep(secrets)
        plain = keep(visible_view(s)[0] for s in self.secrets)  # as matched: in the visible view
        # whole occurrences: secrets too short to have pieces, and those with spaces ("Bearer <token>")
        self._short = [s for s in plain if len(s) < FRAGMENT or any(c.isspace() for c in s)]
        # the space-free parts looked for in pieces, and the least run of each that is masked
        self._least = {p: FRAGMENT for s in plain for p in s.split() if len(p) >= FRAGMENT}
        for part in list(self._least):
            for form, least in encoded_forms(part, FRAGMENT):
                self._least.setdefault(form, least)
        self._grams: dict[str, list[tuple[str, int]]] = {}  # gram -> (part, offset)
        for part in self._least:
            for off in range(len(part) - _ANCHOR + 1):
                self._grams.setdefault(part[off:off + _ANCHOR], []).append((part, off))
        # where a run can be at all: FRAGMENT or more characters that occur in the secrets
        chars = sorted({c for g in self._grams for c in g})
        self._region = re.compile("[" + "".join(re.escape(c) for c in chars) + "]{%d,}" % FRAGMENT) if chars else None
        self._done: dict[str, str] = {}  # masked texts: a checkpoint writes the same messages again and again
        self._hold = max([FRAGMENT, *self._least.values(), *(len(s) for s in self._short)])  # see settled()

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where secrets (and long enough runs of them) sit in `text`: sorted, merged (start, end)."""
        view, kept = visible_view(text)
        found = self._view_spans(view)
        return found if kept is None else [(kept[a], kept[b - 1] + 1) for a, b in found]

    def _view_spans(self, text: str) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        for s in self._short:  # whole occurrences, overlapping ones included
            i = text.find(s)
            while i >= 0:
                found.append((i, i + len(s)))
                i = text.find(s, i + 1)
        if self._region is not None and len(text) >= FRAGMENT:
            for m in self._region.finditer(text):
                found += [(a + m.start(), b + m.start()) for a, b in self._runs(m.group())]
        if not found:
            return []
        found.sort()
        merged = [found[0]]
        for a, b in found[1:]:  # overlapping or touching spans: one mask per run
            if a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return merged

    def _runs(self, text: str) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        seen: set[tuple[str, int]] = set()  # (secret, where it would start in text): widened once
        grams, n = self._grams, len(text)
        for j in [j for j in range(0, n - _ANCHOR + 1, _ANCHOR) if text[j:j + _ANCHOR] in grams]:
            for s, off in grams[text[j:j + _ANCHOR]]:
                if (s, j - off) in seen:
                    continue
                seen.add((s, j - off))
                a, b = j, j + _ANCHOR  # the longest run of `s` through this hit, aligned at `off`
                while a > 0 and a - j + off > 0 and text[a - 1] == s[a - 1 - j + off]:
                    a -= 1
                while b < n and b - j + off < len(s) and text[b] == s[b - j + off]:
                    b += 1
                if b - a >= self._least[s]:
                    found.append((a, b))
        return found

    def __call__(self, text: str, replacement: str = MASK) -> str:
        if not text or not self.secrets:
            return text
        if replacement != MASK or len(text) < CACHE_FROM:
            return _apply(text, self.spans(text), replacement)
        done = self._done.get(text)
        if done is None:
            if len(self._done) >= CACHE_SIZE:
                self._done.clear()
            done = self._done[text] = _apply(text, self.spans(text), replacement)
        return done

    def settled(self, text: str) -> tuple[str, int]:
        """For text that is still growing (a streamed answer): the masked form of the longest
        prefix no continuation can turn into (part of) a secret, and where that prefix ends."""
        if not self.secrets:
            return text, len(text)
        view, kept = visible_view(text)
        spans = self._view_spans(view)
        cut = max(0, len(view) - self._hold)  # a secret starting before this is whole in `view`, or a run of it is
        for a, b in spans:
            if a < cut < b or (b == len(view) and a < cut):
                cut = a
        if kept is not None:  # back to the text: its spans, and the cut before the first unsettled character
            spans = [(kept[a], kept[b - 1] + 1) for a, b in spans]
            cut = kept[cut] if cut < len(view) else len(text)
        head = text[:cut]
        return _apply(head, [(a, b) for a, b in spans if b <= cut]), cut

    def __bool__(self) -> bool:
        return bool(self.secrets)


def _apply(text: str, spans: list[tuple[int, int]], replacement: str = MASK) -> str:
    if not spans:
        return text
    out, pos = [], 0
    for a, b in spans:
        out += [text[pos:a], replacement]
        pos = b
    return "".join(out) + text[pos:]
