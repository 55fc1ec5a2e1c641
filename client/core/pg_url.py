"""Database URLs: which backend, and how to show one without its password.

Pure string work (no driver import), so config and messages can use it cheaply.
"""

from __future__ import annotations

from client.core.config import MASK, PASSWORD_PARAM_RE, USERINFO_RE, url_passwords  # noqa: F401 - re-exported

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
_USERINFO, _PARAM = USERINFO_RE, PASSWORD_PARAM_RE


def is_postgres_url(url: str) -> bool:
    return url.strip().lower().startswith(POSTGRES_SCHEMES)


def mask_url(url: str) -> str:
    """The URL with every password replaced by ***; anything else unchanged."""
    out = _USERINFO.sub(lambda m: m["head"] + (MASK if m["pw"] else "") + m["at"], url)
    return _PARAM.sub(lambda m: m["head"] + MASK, out)
