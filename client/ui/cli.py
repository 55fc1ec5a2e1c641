"""mcp-chat: subcommands chat (default), threads, export, delete, completion.

Arguments are parsed before anything heavy is imported, so `--help` and `--version`
answer at once; each command imports what it needs.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import TYPE_CHECKING

from client.ui import i18n
from client.core.config import ConfigError, Settings
from client.core.secrets import settings_secrets
from client.ui.options import add_chat_options, add_common_options, add_db_option, resolve, resolve_db
from client.ui.i18n import t, tr
from client.core.paths import LOCAL_DB, data_dir, ensure_private_dir
from client.ui.trust import load_user_env, run_trust, settle

if TYPE_CHECKING:
    from client.engine.providers import Runtime

SUBCOMMANDS = ("chat", "threads", "export", "delete", "trust", "completion", "daemon", "local")
SHELLS = ("bash", "zsh")
EXIT_OK, EXIT_RUNTIME, EXIT_CONFIG = 0, 1, 2


def version() -> str:
    from client import __version__  # one constant: no scan of the installed distributions

    return __version__


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def add_usage(self, usage, actions, groups, prefix=None):  # type: ignore[no-untyped-def]
        super().add_usage(usage, actions, groups, tr("사용법: ", "usage: ") if prefix is None else prefix)


class _Version(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str, **kw: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help=tr("버전을 출력하고 종료", "print the version and exit"))

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
        print(f"mcp-chat {version()}")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    def __init__(self, *a: object, **kw: object) -> None:
        kw.setdefault("formatter_class", _Formatter)
        kw["add_help"] = False
        super().__init__(*a, **kw)  # type: ignore[arg-type]
        self._optionals.title = tr("옵션", "options")
        self._positionals.title = tr("인자", "arguments")
        self.add_argument("-h", "--help", action="help", help=tr("이 도움말을 출력하고 종료", "show this help and exit"))
        self.add_argument("--version", action=_Version)

    def error(self, message: str) -> None:  # one line, exit 2
        raise ConfigError("bad_option", detail=message)


def _commands_epilog() -> str:
    rows = [
        ("mcp-chat [chat] [OPTIONS]", tr("대화 (기본 명령)", "chat (the default command)")),
        (tr("mcp-chat -p \"질문\"", "mcp-chat -p \"question\""), tr("한 번 답하고 종료 (stdin도 가능)", "answer once and exit (stdin works too)")),
        ("mcp-chat threads", tr("세션 목록", "list sessions")),
        ("mcp-chat export ID [--format md|json]", tr("세션 전체 기록 출력", "print a session's full transcript")),
        ("mcp-chat delete ID", tr("세션 삭제", "delete a session")),
        ("mcp-chat trust [DIR] [--revoke]", tr("폴더의 .env와 checkpoint.db 신뢰 (또는 취소)", "trust a folder's .env and checkpoint.db (or stop)")),
        ("mcp-chat completion bash|zsh", tr("셸 자동 완성 스크립트 출력", "print a shell completion script")),
        ("mcp-chat daemon status|stop", tr("미리 적재된 백그라운드 프로세스", "the pre-imported background process")),
        ("mcp-chat local status|stop", tr("켜 둔 로컬 모델 서버", "the local model server kept warm")),
    ]
    lines = [tr("명령:", "commands:")] + [f"  {cmd:<40}{what}" for cmd, what in rows]
    lines.append(tr("명령별 도움말: mcp-chat COMMAND --help", "help on a command: mcp-chat COMMAND --help"))
    return "\n".join(lines)


def build_parser(completion: bool = False) -> argparse.ArgumentParser:
    """The command line. With completion=True the chat options sit at the top level too,
    as `mcp-chat --new` is typed (shell completion reads this shape)."""
    p = _Parser(prog="mcp-chat", description=tr("HyperCLOVA X + MCP 터미널 채팅", "HyperCLOVA X + MCP terminal chat"),
                epilog=_commands_epilog())
    if completion:
        add_chat_options(p)
    sub = p.add_subparsers(dest="cmd", parser_class=_Parser, metavar="COMMAND")
    chat = sub.add_parser("chat", prog="mcp-chat", usage="mcp-chat [chat] [OPTIONS]", epilog=_commands_epilog(),
                          help=tr("대화 (기본)", "chat (default)"),
                          description=tr("HyperCLOVA X + MCP 터미널 채팅", "HyperCLOVA X + MCP terminal chat"))
    add_chat_options(chat)
    th = sub.add_parser("threads", prog="mcp-chat threads", help=tr("세션 목록", "list sessions"),
                        description=tr("세션마다 한 줄: ID, 턴 수, 마지막 활동, 제목", "one line per session: id, turns, last activity, title"))
    add_db_option(th)
    ex = sub.add_parser("export", prog="mcp-chat export", help=tr("세션 전체 기록 출력", "print a session's full transcript"))
    ex.add_argument("thread", metavar="ID", help=tr("세션 ID", "session id"))
    ex.add_argument("--format", choices=("md", "json"), default="md", help=tr("출력 형식 (기본 md)", "output format (default md)"))
    add_db_option(ex)
    de = sub.add_parser("delete", prog="mcp-chat delete", help=tr("세션 삭제", "delete a session"))
    de.add_argument("thread", metavar="ID", help=tr("세션 ID", "session id"))
    add_db_option(de)
    tr_ = sub.add_parser("trust", prog="mcp-chat trust", help=tr("폴더 신뢰", "trust a folder"),
                         description=tr("폴더의 .env와 ./checkpoint.db를 쓰도록 신뢰합니다 (사용자별로 기억, .env가 바뀌면 다시 물음)",
                                        "let mcp-chat use a folder's .env and ./checkpoint.db (remembered per user; a changed .env asks again)"))
    tr_.add_argument("dir", nargs="?", default=".", metavar="DIR", help=tr("폴더 (기본: 현재 폴더)", "folder (default: the working folder)"))
    tr_.add_argument("--revoke", action="store_true", help=tr("신뢰 취소", "stop trusting it"))
    co = sub.add_parser("completion", prog="mcp-chat completion", help=tr("셸 자동 완성 스크립트", "shell completion script"),
                        description=tr("예: mcp-chat completion bash > ~/.local/share/bash-completion/completions/mcp-chat",
                                       "e.g. mcp-chat completion bash > ~/.local/share/bash-completion/completions/mcp-chat"))
    co.add_argument("shell", choices=SHELLS, help=tr("셸", "shell"))
    from client.ui import background

    background.add_commands(sub)  # mcp-chat daemon|local status|stop
    for sp in (th, ex, de, tr_):
        add_common_options(sp)
    return p


def _lang_of(argv: list[str]) -> str:
    """--lang before parsing, so that help and parse errors speak it."""
    for i, a in enumerate(argv):
        if a == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--lang="):
            return a.split("=", 1)[1]
    return os.environ.get("MCP_CHAT_LANG", "").strip() or "ko"


def read_prompt(args: argparse.Namespace) -> str | None:
    """-p: the prompt argument, or all of stdin as one message."""
    if args.print_prompt is None:
        return None
    prompt = args.print_prompt
    if not prompt and not sys.stdin.isatty():
        prompt = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    if not prompt.strip():
        raise ConfigError("print_no_prompt")
    return prompt.strip("\n")


async def run_chat(settings: Settings) -> int:
    from client.engine.mcp import server_specs
    from client.engine.providers import get_provider

    specs = server_specs(settings)  # a bad --mcp-config is a ConfigError: exit 2 before anything starts
    if settings.db == str(data_dir() / LOCAL_DB):  # the per-user default: its folder may not exist yet
        ensure_private_dir(data_dir())
    # clova: needs a key; local: starts and stops llama-server
    async with get_provider(settings.provider).runtime(settings, _stderr_notice) as runtime:
        return await _chat(settings, runtime, specs)


def _stderr_notice(key: str, fmt: dict) -> None:
    """A provider's notice before the chat has a renderer (e.g. the local model is starting)."""
    _error_line(t(key, **fmt))


async def _chat(settings: Settings, runtime: Runtime, specs: list) -> int:
    from client.ui.startup import chat  # the start, overlapped (issue 30)

    return await chat(settings, runtime, specs)


def run_completion(shell: str) -> int:
    import shtab

    sys.stdout.write(shtab.complete(build_parser(completion=True), shell=shell))
    return EXIT_OK


def dispatch(args: argparse.Namespace) -> int:
    import asyncio

    i18n.set_lang(args.lang or os.environ.get("MCP_CHAT_LANG", "").strip() or "ko")
    if args.cmd == "chat":
        from client.ui import local_setup  # chat loads the engine anyway
        from client.ui.safe_text import guard_logging

        guard_logging()
        local_setup.install()  # --provider local reports its one-time setup as events: shown on stderr
        settings = resolve(args)
        settings = dataclasses.replace(settings, prompt=read_prompt(args))  # after the options: errors first
        return asyncio.run(run_chat(settings))
    if args.cmd in ("threads", "export", "delete"):
        from client.ui import thread_commands as tc

        if args.cmd == "threads":
            return asyncio.run(tc.run_threads(resolve_db(args)))
        if args.cmd == "export":
            return asyncio.run(tc.run_export(resolve_db(args), args.thread, args.format))
        return asyncio.run(tc.run_delete(resolve_db(args), args.thread))
    if args.cmd == "trust":
        return run_trust(args.dir, args.revoke, args.real_env)
    if args.cmd in ("daemon", "local"):
        from client.ui import background

        return background.run_daemon(args.op) if args.cmd == "daemon" else background.run_local(args.op)
    return run_completion(args.shell)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in SUBCOMMANDS:
        argv = ["chat", *argv]  # `mcp-chat --help` is the chat's help
    real_env = set(os.environ)  # the user's own environment, before any .env
    load_user_env()
    i18n.set_lang(_lang_of(argv))
    debug = "--debug" in argv
    try:
        args = build_parser().parse_args(argv)
        args.lang = getattr(args, "lang", None)
        args.real_env = real_env
        if args.cmd not in ("trust", "completion", "daemon"):  # the working folder's .env and ./checkpoint.db
            args.folder_trusted = settle(getattr(args, "db", None), real_env)
        return dispatch(args)
    except ConfigError as e:
        _error_line(t(e.key, **e.fmt))
        return EXIT_CONFIG
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `mcp-chat export ID | head`
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - classified in one place
        return report(e, argv, debug)


def report(e: Exception, argv: list[str], debug: bool) -> int:
    """One line for an expected error (Korean unless --lang en); a traceback only with --debug."""
    from client.core.config import url_passwords
    from client.core.faults import AuthError, one_line
    from client.core.secrets import Redactor
    from client.engine.local.weights import SetupError
    from client.engine.store import StoreError
    from client.ui.render import debug_traceback

    redact = Redactor([pw for a in argv for pw in url_passwords(a)])  # a --db URL's password too
    if isinstance(e, StoreError):
        _error_line(redact(t(e.key, **e.fmt)))
        return EXIT_RUNTIME
    if isinstance(e, AuthError):
        _error_line(t("auth_failed", err=str(e)))
        return EXIT_CONFIG
    if isinstance(e, SetupError):  # --provider local could not build, fetch or start its model
        _error_line(t("local_failed", err=t(e.key, **e.fmt)))
        return EXIT_RUNTIME
    if debug:
        print(debug_traceback(redact.secrets), file=sys.stderr)
    _error_line(t("turn_error", err=redact(one_line(e))))
    return EXIT_RUNTIME


def _error_line(text: str) -> None:
    """An error line on stderr: known secrets masked, nothing that acts on a terminal."""
    from client.ui.safe_text import screen

    print(screen(text), file=sys.stderr, flush=True)


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
