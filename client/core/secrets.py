"""Secrets: which values must never be shown or stored, and the one way to mask them.

Everything that leaves the program as text (rendered errors and notices, --debug
tracebacks, exports, database rows, tool errors) goes through a `Redactor`. It
masks every occurrence of every secret at once, so a secret that contains
another (or overlaps it) never leaves a tail behind.
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping

from client.core.config import MASK, Settings, url_passwords
from client.core.pg_url import mask_url

# Environment variables whose values are credentials, wherever they are read.
SECRET_VARS = ("CLOVA_STUDIO_API_KEY", "CLOVASTUDIO_API_KEY", "OPENAI_API_KEY", "NAVER_CLIENT_SECRET", "NAVER_CLIENT_ID")
DB_VAR = "CHECKPOINT_DB"  # may be a postgresql:// URL with a password
# Shorter values are not credentials and would mask ordinary words ("1", "on", "dev").
MIN_LEN = 4


def keep(values: Iterable[str]) -> list[str]:
    """The values worth masking: no duplicates, none shorter than MIN_LEN, longest first."""
    return sorted({v for v in values if v and len(v) >= MIN_LEN}, key=lambda v: (-len(v), v))


def env_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Secret values in the environment: the API keys and the password of CHECKPOINT_DB."""
    env = os.environ if environ is None else environ
    return keep([*(env.get(n, "") for n in SECRET_VARS), *url_passwords(env.get(DB_VAR, ""))])


def settings_secrets(s: Settings) -> list[str]:
    """What a run must never print or store: its key, the environment's secrets, a --db password."""
    return keep([s.api_key or "", *env_secrets(), *url_passwords(s.db or "")])


def spec_secrets(env: Mapping[str, str] | None = None, headers: Mapping[str, str] | None = None,
                 extra: Iterable[str] = ()) -> list[str]:
    """Secrets of an MCP server entry: its env and header values, and the bare credentials of
    `Authorization: Bearer <token>` (a server may echo the token without the scheme)."""
    found = [*(env or {}).values(), *extra]
    for value in (headers or {}).values():
        found.append(value)
        parts = value.split(None, 1)
        if len(parts) == 2:  # "<scheme> <credentials>"
            found.append(parts[1].strip())
    return keep(found)


class Redactor:
    """Masks a fixed set of secrets; build it once from the collected values."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = keep(secrets)

    def __call__(self, text: str) -> str:
        if not text or not self.secrets:
            return text
        spans: list[tuple[int, int]] = []
        for s in self.secrets:  # every occurrence, overlapping ones included
            i = text.find(s)
            while i >= 0:
                spans.append((i, i + len(s)))
                i = text.find(s, i + 1)
        if not spans:
            return text
        spans.sort()
        out, pos = [], 0
        start, end = spans[0]
        for a, b in spans[1:]:  # merge overlapping or touching spans: one mask per run
            if a <= end:
                end = max(end, b)
                continue
            out += [text[pos:start], MASK]
            pos, (start, end) = end, (a, b)
        out += [text[pos:start], MASK, text[end:]]
        return "".join(out)

    def __bool__(self) -> bool:
        return bool(self.secrets)


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret masked (for a one-off; keep a Redactor when masking often)."""
    return Redactor(secrets)(text)


def redact_db_error(text: str, url: str) -> str:
    """A driver's message about `url`: the URL shown masked, its password (raw or decoded) gone."""
    return mask_url(Redactor(url_passwords(url))(text.replace(url, mask_url(url))))
