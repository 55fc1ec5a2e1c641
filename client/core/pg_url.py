"""Database URLs: which backend, and how to show one without its password.

Pure string work (no driver import), so config and messages can use it cheaply.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
MASK = "***"
# user:password@ in the authority part of a URL
_USERINFO = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s]*:)(?P<pw>[^@\s]*)(?P<at>@)")
# password=... as a query parameter or a key=value conninfo item
_PARAM = re.compile(r"(?P<head>\bpassword\s*=\s*)(?P<pw>'(?:[^'\\]|\\.)*'|[^&\s]*)", re.IGNORECASE)


def is_postgres_url(url: str) -> bool:
    return url.strip().lower().startswith(POSTGRES_SCHEMES)


def mask_url(url: str) -> str:
    """The URL with every password replaced by ***; anything else unchanged."""
    out = _USERINFO.sub(lambda m: m["head"] + (MASK if m["pw"] else "") + m["at"], url)
    return _PARAM.sub(lambda m: m["head"] + MASK, out)


def url_passwords(url: str) -> list[str]:
    """The password(s) a URL carries, raw and percent-decoded (for redacting free text)."""
    found: list[str] = []
    for m in _USERINFO.finditer(url):
        found.append(m["pw"])
    for m in _PARAM.finditer(url):
        found.append(m["pw"].strip("'"))
    try:  # the parsed form too (covers odd quoting the regexes miss)
        pw = urlsplit(url).password
        if pw:
            found.append(pw)
    except ValueError:
        pass
    out: list[str] = []
    for pw in found:
        for v in (pw, unquote(pw)):
            if v and v not in out:
                out.append(v)
    return sorted(out, key=len, reverse=True)

