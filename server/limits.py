"""How long an HTTP client may take, how many connections may be open and how many MCP sessions
may live: defaults, option parsing, the environment variables, and the start-up line that states
them. No SDK import (cheap to load).
"""

from __future__ import annotations

import argparse
import math
import resource
from collections.abc import Mapping

# Below the SDK's own defaults (10 000 sessions, 30 minutes): an abandoned session holds about
# 60 KB, so 1 000 of them are 60 MB. A connected SDK client keeps its GET stream open and is
# therefore never idle; idleness ends sessions whose client went away without a DELETE.
DEFAULT_MAX_SESSIONS = 1000
DEFAULT_SESSION_IDLE_TIMEOUT = 600.0  # seconds
DEFAULT_HEADER_TIMEOUT = 10.0  # seconds for a request line and its headers (server.httpconn)
DEFAULT_BODY_TIMEOUT = 30.0  # seconds for the whole body once the head is in (server.httpconn)
SHUTDOWN_GRACE = 3.0  # seconds a stop waits for open responses (calls in flight, listen streams)
# Descriptors kept for what is not a client connection: the Naver client's pool (100,
# server/naver.py), the listening socket, the log, the event loop; and ACCEPT_SLACK connections
# accepted past the cap while the evictions that make room for them are under way (server.httpconn).
OTHER_FILES = 128
ACCEPT_SLACK = 64
RESERVED_FILES = OTHER_FILES + ACCEPT_SLACK


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
    "body_timeout": ("MCP_BODY_TIMEOUT", positive_seconds, DEFAULT_BODY_TIMEOUT),
    "max_connections": ("MCP_MAX_CONNECTIONS", count, 0),
}


def connection_room(files: int | None = None) -> int:
    """How many client connections fit under the descriptor limit `files` (default: this process's
    soft RLIMIT_NOFILE) with RESERVED_FILES kept for everything else (a quarter of a small limit)."""
    if files is None:
        files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if files == resource.RLIM_INFINITY:
        files = 1 << 20
    return files - RESERVED_FILES if files >= 2 * RESERVED_FILES else max(1, files // 4)


def accept_slack(cap: int) -> int:
    """Connections accepted past `cap` while evictions make room (within RESERVED_FILES)."""
    return min(ACCEPT_SLACK, max(1, cap // 2))


def connection_cap(requested: int, files: int | None = None) -> int:
    """The connection limit in force: `requested` (0: automatic), never above connection_room()."""
    room = connection_room(files)
    return min(requested, room) if requested else room


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
    """The start-up line that says how long a request may take, how many connections may be open
    and how many sessions may live."""
    cap = connection_cap(args.max_connections)
    head = (f"request line and headers must arrive within {args.header_timeout:g}s, the body within "
            f"{args.body_timeout:g}s; at most {cap} connections")
    if args.max_connections > cap:
        head += f" (not {args.max_connections}: the descriptor limit leaves room for {cap})"
    if args.stateless:
        return f"{head}; stateless: no MCP sessions are kept"
    cap = f"MCP sessions: at most {args.max_sessions}" if args.max_sessions else "MCP sessions: no limit"
    idle = (f"a session closes after {args.session_idle_timeout:g}s without a request"
            if args.session_idle_timeout else "sessions never close for idleness")
    return f"{head}; {cap}; {idle}"
