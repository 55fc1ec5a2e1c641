"""Secrets: which values must never be shown or stored, and the one way to mask them.

Every secret the process learns (the provider key, the Naver credentials, an MCP server's
credential headers and secret-looking env values, OAuth tokens, credentials in URLs) is
`remember`ed here (the environment's by the ui, once it is settled: `env_secrets`). `mask(text)` masks all of them: the
store calls it on the way in (checkpoint blobs, transcript rows, titles, memory) and the ui on
the way out (screen, exports, errors, --debug), so no path needs its own list.

The rule (docs/security.md; applied by client/core/redactor.py): every occurrence of a known secret of MIN_LEN or more characters,
and every run of FRAGMENT or more consecutive characters of a known secret (a prefix, suffix or
middle piece a model or server echoed; for a value with spaces, such as `Bearer <token>`, of a
space-free part of it), becomes MASK. Overlapping or touching matches become one mask, so a
secret that contains another never leaves a tail behind.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping
from urllib.parse import parse_qsl, unquote, urlsplit

from client.core.config import MASK, Settings, url_passwords
from client.core.pg_url import mask_url
from client.core.redactor import CACHE_FROM, FRAGMENT, MIN_LEN, Redactor, keep  # noqa: F401 - re-exported

# Environment variables whose values are credentials, wherever they are read.
SECRET_VARS = ("CLOVA_STUDIO_API_KEY", "CLOVASTUDIO_API_KEY", "OPENAI_API_KEY", "NAVER_CLIENT_SECRET", "NAVER_CLIENT_ID")
DB_VAR = "CHECKPOINT_DB"  # may be a postgresql:// URL with a password
URL_VARS = ("MCP_SERVER_URL", "CLOVA_STUDIO_BASE_URL", "OPENAI_BASE_URL", "NAVER_API_BASE_URL", "MCP_CHAT_LOCAL_URL")
# Names (headers, env variables, URL query parameters) whose values are credentials.
SECRET_NAME = re.compile(r"key|token|secret|passw|pwd|auth|credential|cookie|session|signature|^sig$", re.I)


def looks_secret(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def url_credentials(url: str) -> list[str]:
    """What a URL carries as credentials: its userinfo password and the values of query
    parameters with secret-looking names (`?api_key=...`, `&token=...`), raw and decoded."""
    if not url or "://" not in url:
        return []
    found = list(url_passwords(url))
    try:
        query = urlsplit(url).query
    except ValueError:
        query = url.partition("?")[2]
    for raw in query.split("&"):
        name, sep, value = raw.partition("=")
        if sep and value and looks_secret(unquote(name)):
            found += [value, unquote(value.replace("+", " "))]
    return keep(found)


def mask_url_credentials(url: str) -> str:
    """The URL as it may be shown: password and secret-looking query values replaced by ***."""
    out = mask_url(url)
    head, sep, query = out.partition("?")
    if not sep:
        return out
    query, hash_, frag = query.partition("#")
    parts = []
    for raw in query.split("&"):
        name, eq, value = raw.partition("=")
        parts.append(f"{name}={MASK}" if eq and value and looks_secret(unquote(name)) else raw)
    return head + "?" + "&".join(parts) + hash_ + frag


def env_secrets(env: Mapping[str, str]) -> list[str]:
    """Secret values in an environment: the API keys, the password of CHECKPOINT_DB and the
    credentials in the URL variables."""
    return keep([*(env.get(n, "") for n in SECRET_VARS), *url_passwords(env.get(DB_VAR, "")),
                 *(c for n in URL_VARS for c in url_credentials(env.get(n, "")))])


def settings_secrets(s: Settings) -> list[str]:
    """What a run must never print or store: its key, the known secrets (the environment's among
    them), a --db password, the credentials in its base URL."""
    return keep([s.api_key or "", *known(), *url_passwords(s.db or ""), *url_credentials(s.base_url or "")])


def spec_secrets(env: Mapping[str, str] | None = None, headers: Mapping[str, str] | None = None,
                 extra: Iterable[str] = ()) -> list[str]:
    """Secrets of an MCP server entry: its env and header values, and the bare credentials of
    `Authorization: Bearer <token>` (a server may echo the token without the scheme)."""
    found = [*(env or {}).values(), *extra]
    for value in (headers or {}).values():
        found += [value, *_bare(value)]
    return keep(found)


def credential_values(env: Mapping[str, str] | None = None, headers: Mapping[str, str] | None = None) -> list[str]:
    """The values of an entry that are credentials by their name (Authorization, X-Api-Key,
    GITHUB_TOKEN, ...): known to the whole process, not only to that server's own output."""
    found: list[str] = []
    for name, value in [*(env or {}).items(), *(headers or {}).items()]:
        if looks_secret(name):
            found += [value, *_bare(value)]
    return keep(found)


def _bare(value: str) -> list[str]:
    parts = value.split(None, 1)  # "<scheme> <credentials>"
    return [parts[1].strip()] if len(parts) == 2 else []


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with `secrets` and every secret the process knows masked."""
    return mask(Redactor(secrets)(text))


def redact_db_error(text: str, url: str) -> str:
    """A driver's message about `url`: the URL shown masked, its password (raw or decoded) gone."""
    return mask_url(Redactor(url_passwords(url))(text.replace(url, mask_url(url))))


# -- the secrets this process knows ------------------------------------------------------------
_remembered: set[str] = set()
_cache: tuple[tuple[str, ...], Redactor] | None = None


def remember(values: Iterable[str]) -> None:
    """Make values known secrets of this process (masked by `mask` from now on)."""
    _remembered.update(keep(values))


def known() -> list[str]:
    """Every secret known now."""
    return keep(_remembered)


def redactor() -> Redactor:
    """The Redactor over `known()` (rebuilt only when that changes)."""
    global _cache
    now = tuple(known())
    if _cache is None or _cache[0] != now:
        _cache = (now, Redactor(now))
    return _cache[1]


def mask(text: str, replacement: str = MASK, extra: Iterable[str] = ()) -> str:
    """`text` with every known secret (and `extra`), and every long enough run of one, masked."""
    if not text:
        return text
    return (Redactor([*known(), *extra]) if extra else redactor())(text, replacement)


def holds_secret(text: str) -> bool:
    """Would `mask` change `text`: it holds a known secret, or a long enough run of one."""
    return mask(text) != text


def mask_value(value: Any, extra: Iterable[str] = ()) -> Any:
    """`value` with `mask` applied to every string inside it: dicts (values, not keys), lists,
    tuples and LangChain messages (a copy; the same object when nothing changed)."""
    extra = list(extra)
    return _walk(value, Redactor([*known(), *extra]) if extra else redactor())


def _walk(value: Any, r: Redactor) -> Any:
    if isinstance(value, str):
        return r(value) if value else value
    if isinstance(value, dict):
        out = {k: _walk(v, r) for k, v in value.items()}
        return value if all(out[k] is value[k] for k in value) else out
    if isinstance(value, (list, tuple)):
        items = [_walk(v, r) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        if isinstance(value, list):
            return items
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)  # namedtuple or tuple
    if _is_message(value):
        changed = {}
        for name in type(value).model_fields:
            if name in ("id", "type"):
                continue
            old = getattr(value, name, None)
            new = _walk(old, r)
            if new is not old:
                changed[name] = new
        return value.model_copy(update=changed) if changed else value
    return value


def _is_message(value: Any) -> bool:
    return type(value).__module__.startswith("langchain_core.messages") and hasattr(value, "model_copy")
