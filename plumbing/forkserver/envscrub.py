"""The daemon's own environment holds no secret (each run brings its own environment).

A variable is left out when
- its name says it holds a credential (KEY, TOKEN, SECRET, PASSWORD, ...), or the program names
  it (`Program.secret_names`: e.g. a client id);
- its value carries one: a URL with a password (`postgresql://u:pw@h/db`) or with a long user name
  and no password (`https://ghp_0123456789abcdef@github.com/x`: a token; `git@host` is kept), a query or key=value
  parameter with a credential's name (`?api_key=...`, `token=...`), a libpq `password=`;
- its value contains the value of a variable left out for the reasons above, or a password or
  credential parameter found in any value (a key copied under an innocent name).
Values of fewer than MIN_SECRET characters, and paths, are not compared (they would match
ordinary words and folders: SSH_AUTH_SOCK is left out, HOME is not).
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping
from urllib.parse import unquote, urlsplit

from plumbing.forkserver.freshness import fixed_env

SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE")
# names of URL query / key=value parameters whose values are credentials
_PARAM = re.compile(r"key|token|secret|passw|pwd|auth|credential|cookie|session|signature|^sig$", re.I)
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s,;'\"<>]+")
_PAIR = re.compile(r"(?:^|(?<=[\s?&;]))([A-Za-z0-9_.\-]+)\s*=\s*('[^']*'|[^\s&;]+)")
MIN_SECRET = 8
LONG_USER = 16  # a user name this long with no password is a token (git@, deploy@, postgres@ are not)


def _found_in(value: str) -> list[str]:
    """Credentials `value` carries: URL passwords (or long user names without one), values of
    credential-named parameters."""
    found: list[str] = []
    for url in _URL.findall(value):
        try:
            parts = urlsplit(url)
            password, user = parts.password, parts.username
        except ValueError:
            continue
        if password:
            found += [password, unquote(password)]
        elif user and len(unquote(user)) >= LONG_USER:
            found += [user, unquote(user)]
    for name, raw in _PAIR.findall(value):
        if _PARAM.search(unquote(name)):
            v = raw.strip("'")
            found += [v, unquote(v.replace("+", " "))] if v else []
    return [f for f in found if f]


def secret_name(name: str, extra: Iterable[str] = ()) -> bool:
    return name in set(extra) or any(w in name.upper() for w in SECRET_WORDS)


def daemon_env(env: Mapping[str, str], secret_names: Iterable[str] = ()) -> dict[str, str] | None:
    """`env` without any secret; None when a variable the daemon's key depends on (the locale,
    PYTHON*: freshness.fixed_env) carries one: such a daemon would never match a run, and is
    not started at all."""
    names = tuple(secret_names)
    known: set[str] = set()
    out: dict[str, str] = {}
    dropped: list[str] = []
    for k, v in env.items():
        carried = _found_in(v)
        known.update(carried)
        if secret_name(k, names) or carried:
            known.add(v)
            dropped.append(k)
        else:
            out[k] = v
    known = {s for s in known if len(s) >= MIN_SECRET and not s.startswith("/")}  # a path is no secret
    for k in list(out):
        if any(s in out[k] for s in known):
            dropped.append(k)
            del out[k]
    if any(k in fixed_env(dict(env)) for k in dropped):
        return None
    return out
