"""Settings that only an environment variable gives (README "그 밖의 환경 변수"), read and checked
in one place: a value that makes no sense is a ConfigError (one line, exit 2) before anything
starts, never a silent default, a traceback later or a timeout on every request. What the engine
uses becomes a frozen value (`Tuning`, `Dirs`: client/core/config.py) on Settings: core and
engine read no environment (tests/unit/test_architecture.py).

Kept light (no SDK imports): read while the command line is settled.
"""

from __future__ import annotations

import math
import os
from typing import Callable, TypeVar

from client.core.config import ConfigError, Dirs, Phrase, Tuning, bad_value, env_given, http_url, phrase

T = TypeVar("T")

TEMPERATURE = "MCP_CHAT_TEMPERATURE"  # openai/local: sampling temperature
LOCAL_URL = "MCP_CHAT_LOCAL_URL"  # local: a llama-server already running
SUMMARY_SERVER = "MCP_CHAT_SUMMARY_SERVER"  # local: 1 / 0 force the background summary server on / off
TOOL_SEARCH = "MCP_CHAT_TOOL_SEARCH"  # auto | on | off: deferred tool schemas (docs/mcp.md)
TOOL_SEARCH_MODES = ("auto", "on", "off")  # = client.core.context.deferred_tools.MODES (checked by a test)
LOCAL_THREADS = "MCP_CHAT_LOCAL_THREADS"  # local: llama-server threads (Tuning.local_threads)
KEEP_ALIVE = "MCP_CHAT_LOCAL_KEEP_ALIVE"  # local: seconds (Tuning.keep_alive)
OAUTH_HEADLESS = "MCP_CHAT_OAUTH_HEADLESS"  # Tuning.oauth_headless
STARTUP_TIMEOUT = "MCP_CHAT_STARTUP_TIMEOUT"  # seconds per MCP server start (Tuning.startup_timeout)
STARTUP_GRACE = "MCP_CHAT_STARTUP_GRACE"  # seconds a message waits for servers seen for the first time (likewise)
BACKOFF_SCALE = "MCP_CHAT_TEST_BACKOFF_SCALE"  # test suites only: the waits between tries, scaled (0 to 1)
DAEMON = "MCP_CHAT_DAEMON"  # read by plumbing/forkserver/launcher.py (client/engine/daemon.py) before the command line
DAEMON_IDLE = "MCP_CHAT_DAEMON_IDLE"  # read by plumbing/forkserver/daemon.py
MEMORY_DETACH = "MCP_CHAT_MEMORY_DETACH"  # -p: 1 (default) / 0: a detached job folds what the run leaves (docs/memory.md)


def raw(*names: str) -> str | None:
    """The first of `names` set to something other than blanks, stripped: the ui's one read of the environment."""
    return next((v for v in (os.environ.get(n, "").strip() for n in names) if v), None)


def environ() -> dict[str, str]:
    """The whole environment, as it is now (settled: .env files loaded): what `${VAR}` in mcp.json
    and the bundled search server's variables are taken from, a copy handed down."""
    return dict(os.environ)


def dirs() -> Dirs:
    return Dirs.of(os.environ)


def flag(name: str) -> bool:
    """1/true/yes/on (any case) -> True; unset, empty, 0/false/no/off -> False; else a ConfigError."""
    v = raw(name) or ""
    if v.lower() in ("", "0", "false", "no", "off"):
        return False
    if v.lower() in ("1", "true", "yes", "on"):
        return True
    raise bad(name, v, phrase("rule_flag"))


def bad(name: str, value: str, rule: Phrase) -> ConfigError:
    return bad_value(env_given(name, value), rule)


def number(name: str, convert: Callable[[str], T], ok: Callable[[T], bool], rule: Phrase) -> T | None:
    """The variable converted and checked; None when unset or blank."""
    v = raw(name)
    if v is None:
        return None
    try:
        n = convert(v)
    except ValueError:
        raise bad(name, v, rule) from None
    if not ok(n):
        raise bad(name, v, rule)
    return n


def finite(x: float) -> bool:
    return math.isfinite(x)


def temperature() -> float | None:
    return number(TEMPERATURE, float, lambda t: finite(t) and 0.0 <= t <= 2.0, phrase("rule_range", lo=0, hi=2))


def local_url() -> str:
    v = raw(LOCAL_URL)
    if v is not None and not http_url(v):
        raise bad(LOCAL_URL, v, phrase("rule_http", example="http://127.0.0.1:8080/v1"))
    return v or ""


def summary_server() -> bool | None:
    """1 / 0 (or true/false, yes/no, on/off); unset: None (the default: at a terminal)."""
    return None if raw(SUMMARY_SERVER) is None else flag(SUMMARY_SERVER)


def memory_detach() -> bool:
    """-p leaves the memory passes that need a model request to a detached job (default) or the next start."""
    return raw(MEMORY_DETACH) is None or flag(MEMORY_DETACH)


def tool_search() -> str:
    v = raw(TOOL_SEARCH)
    if v is not None and v.lower() not in TOOL_SEARCH_MODES:
        raise bad(TOOL_SEARCH, v, phrase("rule_choice", choices=", ".join(TOOL_SEARCH_MODES)))
    return v.lower() if v else "auto"


def tuning() -> Tuning:
    """The chat's variables the engine uses (the MCP servers' start, the local model, the OAuth login)."""
    unset = Tuning()
    grace = number(STARTUP_GRACE, float, lambda s: finite(s) and 0 <= s <= 10, phrase("rule_range", lo=0, hi=10))
    keep = number(KEEP_ALIVE, float, lambda s: finite(s) and s >= 0, phrase("rule_seconds", min=0))
    scale = number(BACKOFF_SCALE, float, lambda s: 0 <= s <= 1, phrase("rule_range", lo=0, hi=1))
    return Tuning(
        startup_timeout=number(STARTUP_TIMEOUT, float, lambda s: finite(s) and s > 0, phrase("rule_positive_seconds")),
        startup_grace=unset.startup_grace if grace is None else grace,
        keep_alive=unset.keep_alive if keep is None else keep,
        local_threads=number(LOCAL_THREADS, int, lambda n: n >= 0, phrase("rule_threads")) or None,
        oauth_headless=flag(OAUTH_HEADLESS), backoff_scale=unset.backoff_scale if scale is None else scale)


def check_every_command() -> None:
    """Variables every run reads (the pre-imported process, before the command line)."""
    v = raw(DAEMON)
    if v is not None and v not in ("0", "1"):
        raise bad(DAEMON, v, phrase("rule_choice", choices="1, 0"))
    number(DAEMON_IDLE, float, lambda s: finite(s) and s > 0, phrase("rule_positive_seconds"))
