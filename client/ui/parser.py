"""argparse as the command line speaks it: usage and section titles in the UI language, -h and
--version on every command, and a parse error as one line in the UI language that names the
argument and says what to do, with exit code 2 (a ConfigError)."""

from __future__ import annotations

import argparse
import difflib
import re

from client.core.config import ConfigError
from client.ui.i18n import tr

# argparse's error messages (Python 3.11-3.13), each said again by a message of ours (client/ui/i18n.py)
_ERRORS = (
    (re.compile(r"argument (?P<opt>.+?): invalid choice: (?P<value>.*?) \(choose from (?P<choices>.*)\)$"), "opt_bad_choice"),
    (re.compile(r"argument (?P<opt>.+?): invalid (?P<type>int|float) value: (?P<value>.*)$"), "opt_bad_"),  # + int | float
    (re.compile(r"argument (?P<opt>.+?): expected (?:one argument|at least one argument)$"), "opt_needs_value"),
    (re.compile(r"argument (?P<opt>.+?): ignored explicit argument (?P<value>.*)$"), "opt_no_value"),
    (re.compile(r"argument (?P<opt>.+?): not allowed with argument (?P<other>.+)$"), "opt_conflict"),
    (re.compile(r"ambiguous option: (?P<opt>\S+?)(?:=\S*)? could match (?P<choices>.*)$"), "opt_ambiguous"),
    (re.compile(r"the following arguments are required: (?P<args>.*)$"), "opt_missing"),
)


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
        raise parse_error(self, message)


def parse_error(parser: argparse.ArgumentParser, message: str) -> ConfigError:
    """argparse's `message` as one of our messages: the argument named, what to do next."""
    if message.startswith("unrecognized arguments: "):
        return unknown(parser, message.split(": ", 1)[1].split())
    for pattern, key in _ERRORS:
        m = pattern.match(message)
        if m:
            fields = {k: _unquote(v) for k, v in m.groupdict().items()}
            if "opt" in fields and not fields["opt"].startswith("-"):  # a positional: the command names it
                fields["opt"] = parser.prog
            return ConfigError(key + fields.pop("type", ""), prog=parser.prog, **fields)
    return ConfigError("bad_option", detail=message)


def unknown(parser: argparse.ArgumentParser, words: list[str]) -> ConfigError:
    """Words no argument took: an unknown option (the nearest known one suggested) or words left over."""
    options = [o for p in parsers(parser) for a in p._actions for o in a.option_strings if o.startswith("--")]
    for word in words:
        if word.startswith("-") and word != "-":
            name = word.split("=", 1)[0]
            near = difflib.get_close_matches(name, sorted(set(options) - {name}), n=1, cutoff=0.8)
            return ConfigError("opt_unknown_near" if near else "opt_unknown", opt=name, near=near[0] if near else "")
    return ConfigError("opt_extra", args=" ".join(words))


def parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """`parser` and every command's parser under it."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                found += parsers(sub)
    return found


def _unquote(text: str) -> str:
    """'clova', 'openai' -> clova, openai (argparse quotes values with repr)."""
    return re.sub(r"'([^']*)'", r"\1", text)
