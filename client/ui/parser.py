"""argparse as the command line speaks it: usage and section titles in the UI language, -h and
--version on every command, and a parse error as one line with exit code 2 (a ConfigError)."""

from __future__ import annotations

import argparse

from client.core.config import ConfigError
from client.ui.i18n import tr


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


class Parser(argparse.ArgumentParser):
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
