"""Masking sees through disguises (client/core/redactor.py, invisible.py, secret_forms.py).

The attacker (a tool's output, a model's echo, a pasted text) writes a known key with invisible
characters inside it (zero-width spaces, soft hyphens, bidi controls, tag characters, variation
selectors), or in base64 or hex. The mask covers the original span, invisible characters
included; the text around it is kept as it was.
"""

from __future__ import annotations

import base64

from hypothesis import given
from hypothesis import strategies as st

from client.core.invisible import FORMAT, INVISIBLE, visible_view
from client.core.redactor import FRAGMENT, Redactor

KEY = "sk-test-CLOVA-key-123456"
R = Redactor([KEY])
HIDING = ["\u200b", "\u00ad", "\u202e", "\u2060", "\ufeff", "\U000e0041", "\ufe0f", "\u034f", "\u200d\u200c"]


def shows_no_piece(out: str, secret: str = KEY) -> None:
    """No run of FRAGMENT characters of `secret` is left, once the invisible characters are gone."""
    view = visible_view(out)[0]
    pieces = [secret[i:i + FRAGMENT] for i in range(len(secret) - FRAGMENT + 1)]
    assert not any(p in view for p in pieces), out


def test_a_key_with_invisible_characters_inside_is_masked_whole():
    for c in HIDING:
        disguised = c.join(KEY)  # one between every two characters
        assert R(f"키는 {disguised} 입니다") == "키는 *** 입니다", repr(c)
        assert R(f"[{KEY[:6]}{c}{KEY[6:]}]") == "[***]"
    assert R("\u200b".join(KEY[:13])) == "***"  # a 13-character piece, spread out


def test_the_text_around_is_kept_as_it_was():
    text = "a\u200bb " + KEY[:5] + "\u00ad" + KEY[5:] + " \u202e\u200bend 한국어\u200d"
    assert R(text) == "a\u200bb *** \u202e\u200bend 한국어\u200d"
    assert R("평범한 글\u200b 그대로\u00ad") == "평범한 글\u200b 그대로\u00ad"


def test_streaming_never_lets_a_disguised_key_out_early():
    disguised = "\u200b".join(KEY)
    text = f"답: {disguised} 끝"
    shown, held = "", ""
    for ch in text:  # one character per chunk: the worst split
        held += ch
        out, cut = R.settled(held)
        shown += out
        held = held[cut:]
    shown += R(held)
    assert shown == "답: *** 끝", shown


def test_base64_and_hex_forms_are_masked_at_every_alignment():
    for prefix in ("", "u", "us", "user:"):  # `Authorization: Basic base64(user:key)` and the like
        data = (prefix + KEY + ":tail").encode()
        for b64 in (base64.b64encode(data).decode(), base64.urlsafe_b64encode(data).decode()):
            out = R(f"Authorization: Basic {b64}")
            assert "***" in out
            decoded_left = out.split("Basic ", 1)[1].replace("***", "")
            assert len(decoded_left) < 2 * 16, out  # at most the edges of the run stay
    for hexed in (KEY.encode().hex(), KEY.encode().hex().upper()):
        assert R(f"hex={hexed};") == "hex=***;"
    assert R("plain 0123456789abcdef0123456789abcdef words") == "plain 0123456789abcdef0123456789abcdef words"


def test_format_is_every_cf_character():
    import re
    import sys
    import unicodedata

    fmt = re.compile(f"[{FORMAT}]")
    missing = [hex(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf" and not fmt.match(chr(c))]
    assert missing == []
    assert re.compile(f"[{INVISIBLE}]").match("\u3164")  # a Hangul filler draws nothing either


@given(st.lists(st.tuples(st.integers(0, len(KEY)), st.sampled_from(HIDING)), max_size=12),
       st.text(max_size=20), st.text(max_size=20))
def test_property_no_piece_survives_any_sprinkling(inserts, before, after):
    key = KEY
    for pos, c in sorted(inserts, reverse=True):
        key = key[:pos] + c + key[pos:]
    shows_no_piece(R(before + key + after))


def test_json_escaped_invisible_characters_count_as_the_characters():
    """Issue 50: an error body that writes the key with `\\u200b` as text (JSON's escape) between
    its characters is still the key; so are the other spellings of an invisible character."""
    for esc in ["\\u200b", "\\u200B", "\\\\u200b", "\\xad", "\\U000e0041", "\\udb40\\udc41", "\\u{2060}", "\\ufeff"]:
        assert R(f'{{"error_description": "bad {esc.join(KEY)}"}}') == '{"error_description": "bad ***"}', esc
    assert R(f"{KEY[:8]}\\u200b\u200b\\u00ad{KEY[8:]} 끝") == "*** 끝"  # escaped and raw mixed


def test_escapes_of_visible_characters_are_text_like_any_other():
    assert visible_view("C:\\\\users\\\\u0041 \\u0041 \\ud83d\\ude00 \\x41")[0] == "C:\\\\users\\\\u0041 \\u0041 \\ud83d\\ude00 \\x41"
    spread = "\\u0041".join(KEY)  # an escaped "A" is a letter, not nothing: no key here
    assert R(spread) == spread
