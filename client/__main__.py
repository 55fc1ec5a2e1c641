"""mcp-chat: subcommands chat (default), threads, export, delete."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from dotenv import load_dotenv

from . import i18n
from .faults import AuthError
from .config import ConfigError, Settings, env_secrets, add_chat_options, add_db_option, resolve, resolve_db
from .i18n import t
from .local.weights import SetupError
from .render import Renderer, debug_traceback, redact
from .store import StoreError, open_store
from .store.pg_url import url_passwords

SUBCOMMANDS = ("chat", "threads", "export", "delete")
EXIT_OK, EXIT_RUNTIME, EXIT_CONFIG = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        raise ConfigError("bad_option", detail=message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="mcp-chat", description="HyperCLOVA X + MCP 터미널 채팅")
    sub = p.add_subparsers(dest="cmd", parser_class=_Parser)
    add_chat_options(sub.add_parser("chat", help="대화 (기본)"))
    th = sub.add_parser("threads", help="세션 목록")
    add_db_option(th)
    ex = sub.add_parser("export", help="세션 전체 기록 출력")
    ex.add_argument("thread")
    ex.add_argument("--format", choices=("md", "json"), default="md")
    add_db_option(ex)
    de = sub.add_parser("delete", help="세션 삭제")
    de.add_argument("thread")
    add_db_option(de)
    for sp in (th, ex, de):
        sp.add_argument("--debug", action="store_true")
        sp.add_argument("--lang", choices=("ko", "en"))
    return p


async def run_chat(settings: Settings) -> int:
    from .mcp import server_specs
    from .providers import provider_runtime

    specs = server_specs(settings)  # a bad --mcp-config is a ConfigError: exit 2 before anything starts
    async with provider_runtime(settings):  # clova: needs a key; local: starts and stops llama-server
        return await _chat(settings, specs)


async def _chat(settings: Settings, specs: list) -> int:
    from .agent import build_agent, build_model, check_key
    from .mcp import ToolHub
    from .mcp.gate import PermissionGate
    from .mcp.permissions import Permissions
    from .mcp.saved_approvals import SavedApprovals, approvals_path
    from .repl import Repl
    from .session import ChatSession

    from .tui import make_renderer

    renderer = make_renderer()  # rich at a terminal, plain when piped
    await check_key(settings)
    store = await open_store(settings.db)
    permissions = Permissions(settings.yes, SavedApprovals(approvals_path(settings.user)), secrets=settings.secrets())
    summarizer = build_model(settings, with_tools=False)
    features = client_features(settings, summarizer)
    features.on_event = lambda key, fmt: renderer.notice(t(key, **fmt))  # e.g. an OAuth login URL at start-up
    from .mcp.oauth import headless

    if not headless():
        import webbrowser

        features.open_url = lambda url: webbrowser.open(url, new=2) if renderer.interactive else None
    hub = ToolHub(specs, settings.debug, permissions, features)  # the REPL injects the terminal approver
    try:
        await hub.connect()
        for server in hub.failed():  # one line per server; the others keep their tools
            if server.state == "unconfigured" and not settings.require_tools:  # bundled search, no Naver keys
                renderer.notice(t("search_no_keys"), True)
                continue
            key = "mcp_required" if settings.require_tools else "mcp_server_failed"
            renderer.error(t(key, name=server.spec.name, target=server.spec.where, err=server.error))
        if hub.failed() and settings.require_tools:
            return EXIT_RUNTIME
        model = build_model(settings, with_tools=bool(hub.tools))
        agent, mw = build_agent(model, hub.tools, store.checkpointer, settings.max_input_tokens, settings.debug,
                                max_model_calls=settings.max_model_calls, max_tool_calls=settings.max_tool_calls,
                                gate=PermissionGate(hub.authorize, hub.tool_of))
        if settings.provider == "local":  # the local template lists tools compactly: count what is sent
            from .providers import local_tools_tokens

            mw.tools_tokens = local_tools_tokens(hub.tools)
            mw.calibration.ratio = 1.2  # prior until the server reports: Qwen's tokenizer vs our estimate
        memory = None
        if settings.memory:
            from .memory.manager import MemoryManager

            memory = MemoryManager(store, summarizer, settings.user, threshold=settings.memory_threshold,
                                   top_k=settings.memory_top_k, budget_tokens=settings.memory_budget,
                                   scorer=settings.memory_scorer)
        session = ChatSession(settings, store, agent, mw, summarizer, memory)
        try:
            return await Repl(settings, session, hub, renderer).run()
        except EOFError:
            return EXIT_OK
    finally:
        await hub.aclose()
        await store.close()


def client_features(settings: Settings, model: object):  # -> ClientFeatures
    """What servers may ask of us: --yes answers, the sampling model, the roots; the REPL adds the forms."""
    from pathlib import Path

    from .mcp.features import ClientFeatures
    from .mcp.sampling import make_sampler

    return ClientFeatures(yes=settings.yes, sampler=make_sampler(model, settings.model),  # type: ignore[arg-type]
                          budget=settings.max_input_tokens, max_output=settings.max_output_tokens,
                          roots=[Path.cwd(), *(Path(r) for r in settings.roots)], user=settings.user)


async def run_threads(db: str) -> int:
    from .repl import print_threads

    store = await open_store(db)
    try:
        await print_threads(store, Renderer())
    finally:
        await store.close()
    return EXIT_OK


async def run_export(db: str, thread: str, fmt: str) -> int:
    from .export import to_json, to_markdown

    store = await open_store(db)
    try:
        info = await store.get_thread(thread)
        if info is None:
            raise StoreError("no_thread", id=thread)
        rows = await store.transcript(thread)
        sys.stdout.write(to_json(info, rows) + "\n" if fmt == "json" else to_markdown(info, rows))
    finally:
        await store.close()
    return EXIT_OK


async def run_delete(db: str, thread: str) -> int:
    from .store.sqlite import SqliteStore

    store = await open_store(db)
    try:
        if not await store.delete_thread(thread):
            raise StoreError("no_thread", id=thread)
        if isinstance(store, SqliteStore):
            await store.vacuum()  # give the space back now: delete is explicit and rare
        print(t("deleted", id=thread))
    finally:
        await store.close()
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in SUBCOMMANDS and argv[0] not in ("-h", "--help"):
        argv = ["chat", *argv]
    load_dotenv(".env", override=False)  # real environment variables win
    debug = "--debug" in argv
    try:
        args = build_parser().parse_args(argv)
        i18n.set_lang(getattr(args, "lang", None) or os.environ.get("MCP_CHAT_LANG") or "ko")
        if args.cmd == "chat":
            code = asyncio.run(run_chat(resolve(args)))
        elif args.cmd == "threads":
            code = asyncio.run(run_threads(resolve_db(args)))
        elif args.cmd == "export":
            code = asyncio.run(run_export(resolve_db(args), args.thread, args.format))
        else:
            code = asyncio.run(run_delete(resolve_db(args), args.thread))
    except ConfigError as e:
        print(t(e.key, **e.fmt), file=sys.stderr)
        code = EXIT_CONFIG
    except StoreError as e:
        print(t(e.key, **e.fmt), file=sys.stderr)
        code = EXIT_RUNTIME
    except AuthError as e:
        print(t("auth_failed", err=str(e)), file=sys.stderr)
        code = EXIT_CONFIG
    except SetupError as e:  # --provider local could not build, fetch or start its model
        print(t("local_failed", err=str(e)), file=sys.stderr)
        code = EXIT_RUNTIME
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:  # e.g. `mcp-chat export ID | head`
        code = EXIT_OK
    except Exception as e:  # noqa: BLE001 - last resort: one line unless --debug
        secrets = env_secrets() + [pw for a in argv for pw in url_passwords(a)]  # a --db URL's password too
        if debug:
            print(debug_traceback(secrets), file=sys.stderr)
        line = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(t("turn_error", err=redact(line, secrets)), file=sys.stderr)
        code = EXIT_RUNTIME
    return code


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
