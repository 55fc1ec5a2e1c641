"""How long an HTTP client may take and how many MCP sessions may live: defaults, option parsing,
the environment variables, and the start-up line that states them. No SDK import (cheap to load).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping

# Below the SDK's own defaults (10 000 sessions, 30 minutes): an abandoned session holds about
# 60 KB, so 1 000 of them are 60 MB. A connected SDK client keeps its GET stream open and is
# therefore never idle; idleness ends sessions whose client went away without a DELETE.
DEFAULT_MAX_SESSIONS = 1000
DEFAULT_SESSION_IDLE_TIMEOUT = 600.0  # seconds
DEFAULT_HEADER_TIMEOUT = 10.0  # seconds for a request line and its headers (server.httpconn)
SHUTDOWN_GRACE = 3.0  # seconds a stop waits for open responses (calls in flight, listen streams)


class UsageError(Exception):
    """A bad setting from the environment: one line, exit code 2."""


def count(text: str) -> int:
    """A whole number >= 0 (0: no limit)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return n


def seconds(text: str, zero: bool = True) -> float:
    """A finite number of seconds >= 0 (0: never), or > 0 with zero=False."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(x) or x < 0 or (x == 0 and not zero):
        raise argparse.ArgumentTypeError(f"must be {'0 or more' if zero else 'more than 0'} seconds: {text!r}")
    return x


def positive_seconds(text: str) -> float:
    return seconds(text, zero=False)


# option dest -> (environment variable, parser, default)
NUMBERS = {
    "max_sessions": ("MCP_MAX_SESSIONS", count, DEFAULT_MAX_SESSIONS),
    "session_idle_timeout": ("MCP_SESSION_IDLE_TIMEOUT", seconds, DEFAULT_SESSION_IDLE_TIMEOUT),
    "header_timeout": ("MCP_HEADER_TIMEOUT", positive_seconds, DEFAULT_HEADER_TIMEOUT),
}


def apply_limits(args: argparse.Namespace, env: Mapping[str, str]) -> None:
    """Each limit from its option, else its environment variable, else the default; UsageError
    names the variable when its value is not valid."""
    for dest, (name, parse, default) in NUMBERS.items():
        if getattr(args, dest, None) is None:
            raw = env.get(name, "").strip()
            try:
                setattr(args, dest, parse(raw) if raw else default)
            except argparse.ArgumentTypeError as exc:
                raise UsageError(f"{name}: {exc}") from None


def describe_limits(args: argparse.Namespace) -> str:
    """The start-up line that says how long a request head may take and how many sessions may live."""
    head = f"request line and headers must arrive within {args.header_timeout:g}s"
    if args.stateless:
        return f"{head}; stateless: no MCP sessions are kept"
    cap = f"MCP sessions: at most {args.max_sessions}" if args.max_sessions else "MCP sessions: no limit"
    idle = (f"a session closes after {args.session_idle_timeout:g}s without a request"
            if args.session_idle_timeout else "sessions never close for idleness")
    return f"{head}; {cap}; {idle}"
