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
LANGS = ("ko", "en")


def help_lang(argv: list[str]) -> str:
    """--help's language: --lang, else MCP_CHAT_LANG (the client's), else Korean."""
    for i, a in enumerate(argv):
        if a == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--lang="):
            return a.split("=", 1)[1]
    return os.environ.get("MCP_CHAT_LANG", "").strip() or "ko"


class _Formatter(argparse.HelpFormatter):
    korean = True

    def add_usage(self, usage, actions, groups, prefix=None):  # type: ignore[no-untyped-def]
        super().add_usage(usage, actions, groups, ("사용법: " if self.korean else "usage: ") if prefix is None else prefix)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    argv = sys.argv[1:] if argv is None else argv
    ko = help_lang(argv) != "en"

    def tr(korean: str, english: str) -> str:
        return korean if ko else english

    formatter = type("Formatter", (_Formatter,), {"korean": ko})
    parser = argparse.ArgumentParser(
        prog="mcp-search-server",
        description=tr("네이버 검색 MCP 서버 (도구: web_search, news_search, blog_search).",
                       "Naver Search MCP server (tools: web_search, news_search, blog_search)."),
        formatter_class=formatter,
        add_help=False,
    )
    parser._optionals.title = tr("옵션", "options")
    parser.add_argument("-h", "--help", action="help", help=tr("이 도움말을 출력하고 종료", "show this help and exit"))
    parser.add_argument(
        "--transport",
        choices=("streamable-http", "stdio"),
        default="streamable-http",
        help=tr("전송 방식 (기본: streamable-http, 주소 http://HOST:PORT/mcp)",
                "transport (default: streamable-http, endpoint http://HOST:PORT/mcp)"),
    )
    parser.add_argument("--host", default="127.0.0.1", help=tr("HTTP 로 열 주소 (기본: 127.0.0.1)", "HTTP bind address (default: 127.0.0.1)"))
    parser.add_argument("--port", type=int, default=8000, help=tr("HTTP 포트 (기본: 8000)", "HTTP port (default: 8000)"))
    parser.add_argument(
        "--stateless",
        action="store_true",
        help=tr("세션 없는 streamable HTTP, 평범한 JSON 응답 (복제본 사이에 세션 고정 필요 없음)",
                "stateless streamable HTTP with plain JSON responses (no session affinity needed)"),
    )
    parser.add_argument(
        "--allowed-hosts",
        action="append",
        metavar="H,...",
        help=tr("루프백 말고도 답할 Host 헤더, 예: mcp.internal:8080 또는 mcp.internal:* "
                "(env MCP_ALLOWED_HOSTS; 여러 번 또는 쉼표로)",
                "Host headers to answer besides loopback, e.g. mcp.internal:8080 or mcp.internal:* "
                "(env MCP_ALLOWED_HOSTS; repeatable or comma-separated)"),
    )
    parser.add_argument(
        "--allowed-origins",
        action="append",
        metavar="O,...",
        help=tr("루프백 말고도 받을 Origin 헤더, 예: https://app.example:* (env MCP_ALLOWED_ORIGINS)",
                "Origin headers to accept besides loopback, e.g. https://app.example:* (env MCP_ALLOWED_ORIGINS)"),
    )
    parser.add_argument(
        "--auth-token",
        action="append",
        metavar="T",
        help=tr("GET /healthz 를 뺀 모든 HTTP 요청에 'Authorization: Bearer T' 를 요구; 토큰 여럿(여러 번 또는 쉼표)으로 "
                "교체 가능 (env MCP_SEARCH_TOKEN; 권장: 명령 인자는 ps 에 보임)",
                "require 'Authorization: Bearer T' on every HTTP request but GET /healthz; several tokens "
                "(repeat or comma-separate) allow rotation (env MCP_SEARCH_TOKEN; prefer it: argv is visible in ps)"),
    )
    parser.add_argument(
        "--max-sessions",
        type=count,
        metavar="N",
        help=tr(f"열린 MCP 세션 최대 N개 (세션 있는 HTTP); 넘는 새 세션은 HTTP 503, 열린 세션은 유지; 0 = 제한 없음 "
                f"(env MCP_MAX_SESSIONS; 기본 {DEFAULT_MAX_SESSIONS})",
                f"at most N open MCP sessions (stateful HTTP); a new one beyond that gets HTTP 503, open ones "
                f"are kept; 0 = no limit (env MCP_MAX_SESSIONS; default {DEFAULT_MAX_SESSIONS})"),
    )
    parser.add_argument(
        "--session-idle-timeout",
        type=seconds,
        metavar="S",
        help=tr(f"처리 중인 요청 없이 S초가 지난 MCP 세션을 닫음 (열린 GET 스트림도 요청); 그 ID 는 이후 404; 0 = 닫지 않음 "
                f"(env MCP_SESSION_IDLE_TIMEOUT; 기본 {DEFAULT_SESSION_IDLE_TIMEOUT:g})",
                f"close an MCP session after S seconds without a request in flight (an open GET stream counts "
                f"as one); its id then gets 404; 0 = never (env MCP_SESSION_IDLE_TIMEOUT; default {DEFAULT_SESSION_IDLE_TIMEOUT:g})"),
    )
    parser.add_argument(
        "--header-timeout",
        type=positive_seconds,
        metavar="S",
        help=tr(f"S초 안에 요청 줄과 헤더를 다 보내지 않은 연결을 닫음 (일부만 보냈으면 408) "
                f"(env MCP_HEADER_TIMEOUT; 기본 {DEFAULT_HEADER_TIMEOUT:g})",
                f"close a connection that has not sent a complete request line and headers within S seconds "
                f"(408 if it sent part of one) (env MCP_HEADER_TIMEOUT; default {DEFAULT_HEADER_TIMEOUT:g})"),
    )
    parser.add_argument(
        "--body-timeout",
        type=positive_seconds,
        metavar="S",
        help=tr(f"헤더 뒤 S초 안에 요청 본문이 다 오지 않은 연결을 닫음 (408) "
                f"(env MCP_BODY_TIMEOUT; 기본 {DEFAULT_BODY_TIMEOUT:g})",
                f"close a connection whose request body has not fully arrived S seconds after its headers "
                f"(408) (env MCP_BODY_TIMEOUT; default {DEFAULT_BODY_TIMEOUT:g})"),
    )
    parser.add_argument(
        "--max-connections",
        type=count,
        metavar="N",
        help=tr(f"열린 연결 최대 N개; 하나 더 오면 요청을 가장 오래 기다린 연결을 닫음 (모두 답하는 중이면 503); "
                f"0 = 파일 기술자 한도가 허락하는 만큼 (한도 − {RESERVED_FILES}), 그보다 크게는 안 됨 "
                f"(env MCP_MAX_CONNECTIONS; 기본 0)",
                f"at most N open connections; one more closes the one that has waited longest for its request "
                f"(503 when all are busy answering); 0 = as many as the descriptor limit leaves room for (the limit "
                f"minus {RESERVED_FILES}), also the most allowed (env MCP_MAX_CONNECTIONS; default 0)"),
    )
    parser.add_argument(
        "--log-level",
        type=str.upper,
        choices=LEVELS,
        default=None,
        help=tr("stderr 로그 수준 (기본: HTTP 는 INFO, stdio 는 WARNING)", "log level on stderr (default: INFO for HTTP, WARNING for stdio)"),
    )
    parser.add_argument(
        "--no-env-file",
        action="store_true",
        help=tr("./.env 를 읽지 않음 (이 서버를 띄우는 클라이언트가 필요한 것을 환경으로 넘김)",
                "do not read ./.env (a client that spawns this server passes what it needs in the environment)"),
    )
    parser.add_argument(
        "--env-file",
        metavar="PATH",
        help=tr("이 .env 를 읽음 (기본: ./.env, `mcp-chat trust` 로 신뢰한 폴더에서만)",
                "read this .env (default: ./.env, only in a folder trusted with `mcp-chat trust`)"),
    )
    parser.add_argument("--lang", choices=LANGS, help=tr("--help 의 언어 (env MCP_CHAT_LANG, 기본 ko)", "--help's language (env MCP_CHAT_LANG, default ko)"))
    parser.add_argument("--version", action="version", version=f"mcp-search-server {_version()}",
                        help=tr("버전을 출력하고 종료", "print the version and exit"))
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
