"""`mcp-search-server` / `python -m server`: run the Naver Search MCP server.

    mcp-search-server [--transport streamable-http|stdio] [--host 127.0.0.1] [--port 8000]
                      [--stateless] [--log-level LEVEL]
                      [--allowed-hosts H,...] [--allowed-origins O,...] [--auth-token T]
                      [--max-sessions N] [--session-idle-timeout S] [--header-timeout S]
                      [--body-timeout S] [--max-connections N]

Env: MCP_ALLOWED_HOSTS, MCP_ALLOWED_ORIGINS, MCP_SEARCH_TOKEN (comma-separated lists),
MCP_MAX_SESSIONS, MCP_SESSION_IDLE_TIMEOUT, MCP_HEADER_TIMEOUT, MCP_BODY_TIMEOUT,
MCP_MAX_CONNECTIONS; options win.

`--env-file PATH` is loaded first; else `./.env`, only in a folder trusted with `mcp-chat trust`
(server/envfile.py; not with --no-env-file). Real environment variables win.
Logs go to stderr only (on stdio, stdout carries nothing but the protocol).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys

import anyio

from server.limits import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_SESSION_IDLE_TIMEOUT,
    RESERVED_FILES,
    UsageError,
    apply_limits,
    connection_cap,
    count,
    describe_limits,
    positive_seconds,
    seconds,
)
from server.logsafe import OneLineFormatter

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="mcp-search-server",
        description="Naver Search MCP server (tools: web_search, news_search, blog_search).",
    )
    parser.add_argument(
        "--transport",
        choices=("streamable-http", "stdio"),
        default="streamable-http",
        help="transport (default: streamable-http, endpoint http://HOST:PORT/mcp)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default: 8000)")
    parser.add_argument(
        "--stateless",
        action="store_true",
        help="stateless streamable HTTP with plain JSON responses (no session affinity needed)",
    )
    parser.add_argument(
        "--allowed-hosts",
        action="append",
        metavar="H,...",
        help="Host headers to answer besides loopback, e.g. mcp.internal:8080 or mcp.internal:* "
        "(env MCP_ALLOWED_HOSTS; repeatable or comma-separated)",
    )
    parser.add_argument(
        "--allowed-origins",
        action="append",
        metavar="O,...",
        help="Origin headers to accept besides loopback, e.g. https://app.example:* (env MCP_ALLOWED_ORIGINS)",
    )
    parser.add_argument(
        "--auth-token",
        action="append",
        metavar="T",
        help="require 'Authorization: Bearer T' on every HTTP request but GET /healthz; several tokens "
        "(repeat or comma-separate) allow rotation (env MCP_SEARCH_TOKEN; prefer it: argv is visible in ps)",
    )
    parser.add_argument(
        "--max-sessions",
        type=count,
        metavar="N",
        help=f"at most N open MCP sessions (stateful HTTP); a new one beyond that gets HTTP 503, open ones "
        f"are kept; 0 = no limit (env MCP_MAX_SESSIONS; default {DEFAULT_MAX_SESSIONS})",
    )
    parser.add_argument(
        "--session-idle-timeout",
        type=seconds,
        metavar="S",
        help=f"close an MCP session after S seconds without a request in flight (an open GET stream counts "
        f"as one); its id then gets 404; 0 = never (env MCP_SESSION_IDLE_TIMEOUT; default {DEFAULT_SESSION_IDLE_TIMEOUT:g})",
    )
    parser.add_argument(
        "--header-timeout",
        type=positive_seconds,
        metavar="S",
        help=f"close a connection that has not sent a complete request line and headers within S seconds "
        f"(408 if it sent part of one) (env MCP_HEADER_TIMEOUT; default {DEFAULT_HEADER_TIMEOUT:g})",
    )
    parser.add_argument(
        "--body-timeout",
        type=positive_seconds,
        metavar="S",
        help=f"close a connection whose request body has not fully arrived S seconds after its headers "
        f"(408) (env MCP_BODY_TIMEOUT; default {DEFAULT_BODY_TIMEOUT:g})",
    )
    parser.add_argument(
        "--max-connections",
        type=count,
        metavar="N",
        help=f"at most N open connections; one more closes the one that has waited longest for its request "
        f"(503 when all are busy answering); 0 = as many as the descriptor limit leaves room for (the limit "
        f"minus {RESERVED_FILES}), also the most allowed (env MCP_MAX_CONNECTIONS; default 0)",
    )
    parser.add_argument(
        "--log-level",
        type=str.upper,
        choices=LEVELS,
        default=None,
        help="log level on stderr (default: INFO for HTTP, WARNING for stdio)",
    )
    parser.add_argument(
        "--no-env-file",
        action="store_true",
        help="do not read ./.env (a client that spawns this server passes what it needs in the environment)",
    )
    parser.add_argument(
        "--env-file",
        metavar="PATH",
        help="read this .env (default: ./.env, only in a folder trusted with `mcp-chat trust`)",
    )
    parser.add_argument("--version", action="version", version=f"mcp-search-server {_version()}")
    args = parser.parse_args(argv)
    if args.log_level is None:
        args.log_level = "WARNING" if args.transport == "stdio" else "INFO"
    return args


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp-chat")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


def setup_logging(level: str) -> None:
    """Plain stderr logging; per-request chatter from the SDK and httpx only at DEBUG."""
    handler = logging.StreamHandler(sys.stderr)
    # One record is one line: control and bidi characters from requests are written escaped.
    handler.setFormatter(OneLineFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    if level != "DEBUG":
        for name in ("mcp.server.lowlevel.server", "mcp.server.mcpserver.server", "mcp.server.streamable_http",
                     "httpx", "httpcore"):
            logging.getLogger(name).setLevel(logging.WARNING)
        # A second line per request (session created/refused, Host/Origin refused): the access
        # line already says it (server.gate.AccessLog), so one request stays one line.
        for name in ("mcp.server.streamable_http_manager", "mcp.server.transport_security"):
            logging.getLogger(name).setLevel(logging.ERROR)
        # The SDK logs a traceback when a client closes its session while the GET stream is open,
        # and when a request's body never came whole (its client went, or server.httpconn closed it).
        logging.getLogger("mcp.server.streamable_http").addFilter(_drop_closed_stream_errors)


def _drop_closed_stream_errors(record: logging.LogRecord) -> bool:
    exc = record.exc_info[1] if record.exc_info else None
    if type(exc).__name__ == "ClientDisconnect" and type(exc).__module__.startswith("starlette"):
        return False
    return not isinstance(exc, (anyio.ClosedResourceError, anyio.BrokenResourceError))


def load_env_file(args: argparse.Namespace) -> None:
    """--env-file, or ./.env of a trusted folder only (server/envfile.py); one warning line when
    the folder's .env is left unread. A file that is not UTF-8 text is a UsageError (one line)."""
    from server.envfile import load_env

    notice = load_env(args.env_file, args.no_env_file)
    if notice:
        logging.getLogger("server").warning("%s", notice)


def apply_env(args: argparse.Namespace) -> None:
    """Lists from options, else from the environment (after .env is loaded)."""
    from server.gate import split_list

    args.allowed_hosts = split_list(args.allowed_hosts or os.environ.get("MCP_ALLOWED_HOSTS"))
    args.allowed_origins = split_list(args.allowed_origins or os.environ.get("MCP_ALLOWED_ORIGINS"))
    args.auth_token = split_list(args.auth_token or os.environ.get("MCP_SEARCH_TOKEN"))
    apply_limits(args, os.environ)


def _exit_now(signum: int, frame: object) -> None:
    sys.stderr.flush()
    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    setup_logging(args.log_level)
    try:
        load_env_file(args)
        apply_env(args)
    except UsageError as exc:
        print(f"mcp-search-server: error: {exc}", file=sys.stderr)
        return 2
    # Import after logging is set so MCPServer's basicConfig does not install its own handler.
    from server.app import build_app, serve_http, serve_stdio
    from server.gate import describe_security

    app = build_app(
        host=args.host,
        port=args.port,
        stateless_http=args.stateless,
        json_response=args.stateless,
        log_level=args.log_level,
        allowed_hosts=args.allowed_hosts,
        allowed_origins=args.allowed_origins,
        max_sessions=args.max_sessions or None,
        session_idle_timeout=args.session_idle_timeout or None,
    )
    try:
        if args.transport == "stdio":
            # The SDK reads stdin in a thread that a signal cannot interrupt: exit at once.
            signal.signal(signal.SIGINT, _exit_now)
            signal.signal(signal.SIGTERM, _exit_now)
            anyio.run(serve_stdio, app)
        else:
            logging.getLogger("server").info(
                "Naver search MCP server on http://%s:%d/mcp%s",
                args.host,
                args.port,
                " (stateless)" if args.stateless else "",
            )
            for line in describe_security(args.host, args.allowed_hosts, args.allowed_origins, len(args.auth_token)):
                logging.getLogger("server").log(
                    logging.WARNING if " OFF" in line or "no --auth-token" in line else logging.INFO, "%s", line
                )
            logging.getLogger("server").info("%s", describe_limits(args))
            signal.signal(signal.SIGTERM, signal.default_int_handler)  # like Ctrl-C: quiet exit
            anyio.run(serve_http, app, args.auth_token, args.header_timeout, args.body_timeout,
                      connection_cap(args.max_connections))
    except KeyboardInterrupt:
        pass
    return 0


def boot() -> None:
    """The client's bundled stdio command (client/engine/mcp/specs.py): served by this user's
    pre-imported server process when one runs (plumbing/forkserver, server/daemon.py), else a cold start."""
    from plumbing.forkserver import launcher
    from server.daemon import PROGRAM

    code = launcher.run(PROGRAM)
    if code is None:  # a stdio server ends by a signal (_exit_now): start the daemon now, importing later
        launcher.spawn(PROGRAM, dict(os.environ), delay=SPAWN_DELAY)
        code = main()
    sys.exit(code)


def daemon(kind: str, name: str) -> None:
    """The pre-imported server process (started by launcher.spawn); each forked run goes on here."""
    from plumbing.forkserver.child import run_main
    from plumbing.forkserver.daemon import serve
    from server.daemon import PROGRAM, preload

    run = serve(PROGRAM, name, preload)
    run.become()
    run_main(main)


SPAWN_DELAY = 5.0  # seconds: the chat that started this server is starting too

if __name__ == "__main__":
    sys.exit(main())
