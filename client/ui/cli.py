"""mcp-chat: subcommands chat (default), threads, export, delete, import, completion.

Arguments are parsed before anything heavy is imported, so `--help` and `--version`
answer at once; each command imports what it needs.

Why this file is longer than most: it is the one place argv takes its shape before argparse sees
it (options before the command name, a first word that is a question, --lang before parsing) and
the one place every failure becomes its line and exit code. Each part reads the parser built here
(`_option_arity`), so splitting them would pass the parser around for no reader's gain.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from client.ui import i18n
from client.core.config import THREAD_ID_RE, ConfigError, Settings
from client.ui.options import add_chat_options, add_common_options, add_db_option, resolve, resolve_db, resolve_lang, resolve_user
from client.ui.i18n import t, tr
from client.ui import early_prompt, import_command, thread_args
from client.ui.failures import JSON_OUT, Failure
from client.ui.parser import Parser as _Parser, parsers
from client.core.paths import LOCAL_DB, ensure_private_dir
from client.ui import env_settings
from client.ui.trust import load_user_env, run_trust, settle

if TYPE_CHECKING:
    from client.engine.providers import Runtime
    from client.engine.store import Store

SUBCOMMANDS = ("chat", "threads", "export", "delete", "fork", "import", "trust", "completion", "daemon", "local", "memory")
SHELLS = ("bash", "zsh")
EXIT_OK = 0  # the others: client/ui/failures.py


def _commands_epilog() -> str:
    rows = [
        ("mcp-chat [chat] [OPTIONS]", tr("대화 (기본 명령; 옵션은 명령 이름 앞에도 됨)", "chat (the default command; options may also precede a command name)")),
        ("mcp-chat [-p] QUESTION", tr("한 번 답하고 종료 (-p 는 stdin도 가능)", "answer once and exit (-p: stdin works too)")),
        ("mcp-chat -c | -r [ID]", tr("최근 세션 이어가기 / 목록에서 고르기", "resume the latest session / pick one")),
        ("mcp-chat threads", tr("세션 목록", "list sessions")),
        ("mcp-chat export ID [--format md|json]", tr("세션 전체 기록 출력", "print a session's full transcript")),
        ("mcp-chat delete ID", tr("세션 삭제", "delete a session")),
        ("mcp-chat fork ID [--at N] [--name NEW]", tr("처음 N턴으로 새 세션 만들기", "a new session from the first N turns")),
        ("mcp-chat import FILE", tr("파일(JSON 내보내기, LoCoMo)의 대화를 새 세션으로", "a conversation from a file (JSON export, LoCoMo) as a new session")),
        ("mcp-chat trust [DIR] [--revoke]", tr("폴더의 .env와 checkpoint.db 신뢰 (또는 취소)", "trust a folder's .env and checkpoint.db (or stop)")),
        ("mcp-chat completion bash|zsh", tr("셸 자동 완성 스크립트 출력", "print a shell completion script")),
        ("mcp-chat daemon start|status|stop", tr("미리 적재된 백그라운드 프로세스", "the pre-imported background process")),
        ("mcp-chat local status|stop", tr("켜 둔 로컬 모델 서버", "the local model server kept warm")),
        ("mcp-chat memory fold", tr("미뤄 둔 장기 기억 정리 (-p 가 백그라운드로 부름)", "pending memory passes (-p starts it in the background)")),
    ]
    # ASCII commands, placeholders as in the usage line: one cell a character, and --help imports no rich
    lines = [tr("명령:", "commands:")] + [f"  {cmd}{' ' * max(1, 40 - len(cmd))}{what}" for cmd, what in rows]
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
    chat = sub.add_parser("chat", prog="mcp-chat", usage="mcp-chat [chat] [OPTIONS] [QUESTION]", epilog=_commands_epilog(),
                          help=tr("대화 (기본)", "chat (default)"),
                          description=tr("HyperCLOVA X + MCP 터미널 채팅", "HyperCLOVA X + MCP terminal chat"))
    add_chat_options(chat)
    chat.add_argument("question", nargs="?", metavar="QUESTION",
                      help=tr("한 번 답하고 종료 (-p QUESTION 과 같음)", "answer once and exit (the same as -p QUESTION)"))
    th, ex, de, fo = thread_args.add_commands(sub)  # threads, export, delete, fork
    im = import_command.add_parser(sub)  # with --db and --user
    tr_ = sub.add_parser("trust", prog="mcp-chat trust", help=tr("폴더 신뢰", "trust a folder"),
                         description=tr("폴더의 .env와 ./checkpoint.db를 쓰도록 신뢰합니다 (사용자별로 기억, .env가 바뀌면 다시 물음)",
                                        "let mcp-chat use a folder's .env and ./checkpoint.db (remembered per user; a changed .env asks again)"))
    tr_.add_argument("dir", nargs="?", default=".", metavar="DIR", help=tr("폴더 (기본: 현재 폴더)", "folder (default: the working folder)"))
    tr_.add_argument("--revoke", action="store_true", help=tr("신뢰 취소", "stop trusting it"))
    co = sub.add_parser("completion", prog="mcp-chat completion", help=tr("셸 자동 완성 스크립트", "shell completion script"),
                        description=tr("예: mcp-chat completion bash --install (폴더가 없으면 만듦), 또는 mcp-chat completion zsh > FILE",
                                       "e.g. mcp-chat completion bash --install (makes the folder if need be), or mcp-chat completion zsh > FILE"))
    co.add_argument("shell", choices=SHELLS, help=tr("셸", "shell"))
    co.add_argument("--install", action="store_true",
                    help=tr("출력하지 않고 사용자별 표준 폴더에 씀: bash $XDG_DATA_HOME/bash-completion/completions/mcp-chat, "
                            "zsh $XDG_DATA_HOME/zsh/site-functions/_mcp-chat",
                            "write it into the per-user standard folder instead: bash $XDG_DATA_HOME/bash-completion/completions/mcp-chat, "
                            "zsh $XDG_DATA_HOME/zsh/site-functions/_mcp-chat"))
    from client.ui import background

    background.add_commands(sub)  # mcp-chat daemon|local status|stop
    from client.ui import memory_command

    memory_command.add_parser(sub)  # mcp-chat memory fold (with the chat options)
    for sp in (th, ex, de, fo, im, tr_, co):
        add_common_options(sp)
    return p


def _lang_of(argv: list[str]) -> str:
    """--lang before parsing, so that help and parse errors speak it."""
    for i, a in enumerate(argv):
        if a == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--lang="):
            return a.split("=", 1)[1]
    return env_settings.raw("MCP_CHAT_LANG") or "ko"


def with_command(argv: list[str]) -> list[str]:
    """The command name first, as argparse wants it: options may stand before it (`mcp-chat --db X
    threads`, `mcp-chat --lang en export ID`); with no command name the command is chat, whose
    first word, if any, is the question (`mcp-chat "question"`, the same as `-p "question"`)."""
    i = _first_word(argv)
    if i is not None and argv[i] in SUBCOMMANDS:
        return [argv[i], *argv[:i], *argv[i + 1:]]
    return ["chat", *argv]


def _first_word(argv: list[str]) -> int | None:
    """Index of the first argument that is neither an option nor an option's value; None after an
    option no command knows (`--provder local`: its value is no command name, the chat's parser
    names the option and the nearest known one)."""
    takes = _option_arity()
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":  # what follows is the question, never a command name
            return None
        if not a.startswith("-") or a == "-":
            return i
        name = a.split("=", 1)[0]
        if name not in takes and not any(o.startswith(name) for o in takes if name.startswith("--")):
            return None
        nargs = takes.get(a, 0) if "=" not in a else 0
        if nargs == "?":  # -p [PROMPT], -r [ID]: the next word is the value unless it is an option
            i += 1 if i + 1 < len(argv) and not argv[i + 1].startswith("-") else 0
        elif nargs:
            i += 1
        i += 1
    return None


def _option_arity() -> dict[str, object]:
    """option string -> "?" (optional value), 1 (one value) or 0 (a flag), for every option of
    every command (a command's options may stand before its name)."""
    out: dict[str, object] = {}
    for action in (a for p in parsers(build_parser()) for a in p._actions):
        arity = "?" if action.nargs == "?" else 0 if action.nargs == 0 else 1
        for opt in action.option_strings:
            out[opt] = arity
    return out


def question_as_prompt(args: argparse.Namespace) -> None:
    """`mcp-chat "question"` is `mcp-chat -p "question"` (also with a bare -p beside it)."""
    question = getattr(args, "question", None)
    if question is None:
        return
    if args.print_prompt:
        raise ConfigError("two_prompts", a=args.print_prompt, b=question)
    args.print_prompt = question


def read_prompt(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """-p: (the message, the user's own line when it is not all of it): the prompt argument with
    piped stdin after it, or all of stdin as one message (client/ui/piped.py)."""
    if args.print_prompt is None:
        return None, None
    from client.ui import piped

    prompt, own = piped.read(args.print_prompt)
    if not prompt.strip():
        raise ConfigError("print_no_prompt")
    return prompt.strip("\n"), own


async def run_chat(settings: Settings) -> int:
    """Everything that can be wrong with the settings, the MCP config and the database is
    reported (one line) before any model, server or request starts: the store is opened first."""
    from client.engine.mcp import server_specs
    from client.engine.providers import get_provider
    from client.engine.store import open_store

    provider = get_provider(settings.provider)
    provider.check(settings)  # e.g. no key: exit 2
    specs = server_specs(settings, env_settings.environ())  # a bad --mcp-config: exit 2 before anything starts
    if settings.db == str(settings.dirs.data / LOCAL_DB):  # the per-user default: its folder may not exist yet
        ensure_private_dir(settings.dirs.data)
    from client.ui.local_setup import StartFrontend

    store = await open_store(settings.db, config=settings.dirs.config)  # sound and writable, else one line, exit 1 (nothing written)
    try:
        # clova: needs a key; local: prepares once (its setup shown on stderr), starts and stops llama-server
        async with provider.runtime(settings, StartFrontend()) as runtime:
            return await _chat(settings, runtime, specs, store)
    finally:
        await store.close()


async def _chat(settings: Settings, runtime: Runtime, specs: list, store: Store) -> int:
    from client.ui.startup import chat  # the start, overlapped (issue 30)

    return await chat(settings, runtime, specs, store)


def run_completion(shell: str, install: bool = False) -> int:
    """The completion script on stdout, or (--install) in the folder the shell reads it from, made
    if missing (`completion bash > ~/.local/share/bash-completion/completions/mcp-chat` failed on a
    new HOME: the shell opens the file before the command runs)."""
    import shtab

    script = shtab.complete(build_parser(completion=True), shell=shell)
    if not install:
        sys.stdout.write(script)
        return EXIT_OK
    root = env_settings.dirs().data.parent  # $XDG_DATA_HOME, else ~/.local/share
    path = root / "bash-completion" / "completions" / "mcp-chat" if shell == "bash" else root / "zsh" / "site-functions" / "_mcp-chat"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script, encoding="utf-8")
    print(t("completion_installed", path=path), file=sys.stderr)
    if shell == "zsh":
        print(t("completion_zsh_fpath", folder=path.parent), file=sys.stderr)
    return EXIT_OK


def dispatch(args: argparse.Namespace) -> int:
    import asyncio

    i18n.set_lang(resolve_lang(args))  # an unknown MCP_CHAT_LANG is a bad option (exit 2)
    env_settings.check_every_command()
    if args.cmd == "chat":
        from client.ui.safe_text import guard_logging

        guard_logging()  # library warnings are cleaned and masked like everything we print
        settings = resolve(args)
        prompt, own = read_prompt(args)  # after the options: errors first
        settings = dataclasses.replace(settings, prompt=prompt, prompt_own=own)
        early_prompt.show(settings)  # the prompt at once; the chat loads while the user types
        return asyncio.run(run_chat(settings))
    if args.cmd == "memory":
        from client.ui import memory_command

        return asyncio.run(memory_command.run_fold(resolve(args, interactive=False)))
    if args.cmd in ("threads", "export", "delete", "fork"):
        from client.ui import thread_commands as tc

        if args.cmd == "threads":
            return asyncio.run(tc.run_threads(resolve_db(args)))
        if args.cmd == "export":
            return asyncio.run(tc.run_export(resolve_db(args), args.thread, args.format))
        if args.cmd == "fork":
            if args.name is not None and not THREAD_ID_RE.match(args.name):
                raise ConfigError("bad_thread_id")
            return asyncio.run(tc.run_fork(resolve_db(args), args.thread, args.at, args.name, resolve_user(args)))
        return asyncio.run(tc.run_delete(resolve_db(args), args.thread))
    if args.cmd == "import":
        return asyncio.run(import_command.dispatch(args, resolve_db(args)))
    if args.cmd == "trust":
        return run_trust(args.dir, args.revoke, args.real_env)
    if args.cmd in ("daemon", "local"):
        from client.ui import background

        return background.run_daemon(args.op) if args.cmd == "daemon" else background.run_local(args.op)
    return run_completion(args.shell, args.install)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    JSON_OUT.start(argv)  # --output-format json: one object on stdout, also when the run fails
    real_env = set(os.environ)  # the user's own environment, before any .env
    i18n.set_lang(_lang_of(argv))  # an unreadable per-user .env is reported in this language
    debug = "--debug" in argv
    try:
        argv = with_command(argv)  # `mcp-chat --help` is the chat's help
        load_user_env()
        i18n.set_lang(_lang_of(argv))
        args = build_parser().parse_args(argv)
        args.lang = getattr(args, "lang", None)
        args.real_env = real_env
        if args.cmd == "chat":
            question_as_prompt(args)
        if args.cmd not in ("trust", "completion", "daemon"):  # the working folder's .env and ./checkpoint.db
            args.folder_trusted = settle(getattr(args, "db", None), real_env)
        learn_env_secrets()  # the environment is settled (.env files loaded)
        code = dispatch(args)
        if code:  # every failure raises; this stands guard over a path that would end with no object
            JSON_OUT.failure(Failure("internal", t("unexpected_error", err=f"exit code {code}"), code))
        return code
    except BrokenPipeError:  # e.g. `mcp-chat export ID | head`
        return EXIT_OK
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - classified in one place
        return report(e, argv, debug)
    finally:
        early_prompt.erase()  # e.g. Ctrl-C before the chat took over the terminal


def learn_env_secrets() -> None:
    """The environment's secrets, masked in everything stored or printed from now on (client/core/secrets.py)."""
    from client.core.secrets import env_secrets, remember

    remember(env_secrets(env_settings.environ()))


def report(e: BaseException, argv: list[str], debug: bool) -> int:
    """One line for an expected error (Korean unless --lang en; one per server for --require-tools),
    the same as a JSON object with --output-format json; a traceback only with --debug."""
    from client.core.config import url_passwords
    from client.core.secrets import Redactor
    from client.ui.failures import of_exception
    from client.ui.render import debug_traceback

    learn_env_secrets()  # also when the run failed before its environment was settled
    redact = Redactor([pw for a in argv for pw in url_passwords(a)])  # a --db URL's password too
    failed = of_exception(e)
    if debug and failed.kind in ("internal", "not_writable"):
        print(debug_traceback(redact.secrets), file=sys.stderr)
    if failed.kind != "interrupted":  # Ctrl-C says nothing more than the shell's ^C
        for line in failed.message.splitlines():
            _error_line(redact(line))
    JSON_OUT.failure(dataclasses.replace(failed, message=redact(failed.message)))
    return failed.code


def _error_line(text: str) -> None:
    """An error line on stderr: known secrets masked, nothing that acts on a terminal."""
    from client.ui.safe_text import screen

    early_prompt.erase()

    print(screen(text), file=sys.stderr, flush=True)


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
