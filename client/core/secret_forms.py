"""The encoded forms a known secret is also masked in: base64 and hex. Pure.

A tool that returns a file, a header or a token in base64 (`Authorization: Basic
base64(id:secret)`, a JSON Web Token, a data: URL) or hex carries the secret in another
alphabet. For every secret of FRAGMENT or more characters its UTF-8 bytes are encoded as hex
(lower and upper case) and as base64 (standard and URL-safe alphabets) at each of the three
byte alignments it can start at inside longer data, so any run of the encoded text that stands
for FRAGMENT or more bytes of the secret is masked (client/core/secrets.py: the same piece rule
as for the secret itself). Other encodings are out of scope (docs/security.md).
"""

from __future__ import annotations

import base64


def encoded_forms(secret: str, fragment: int) -> list[tuple[str, int]]:
    """(encoded text, how many of its characters stand for `fragment` bytes: the least run masked)."""
    data = secret.encode("utf-8", "surrogatepass")
    hexed = data.hex()
    out = [(hexed, 2 * fragment), (hexed.upper(), 2 * fragment)]
    b64_run = -(-fragment * 4 // 3)  # 12 bytes are 16 base64 characters
    for skip in range(3):  # the secret's byte `skip` starts a 3-byte group of the stream
        whole = data[skip:][: (len(data) - skip) // 3 * 3]
        if len(whole) >= fragment:
            std = base64.b64encode(whole).decode("ascii")
            out += [(std, b64_run), (std.translate(_URLSAFE), b64_run)]
    return out


_URLSAFE = str.maketrans("+/", "-_")
