"""The command-line shape of the commands that use a database without a chat: threads, export,
delete, fork (client/ui/thread_commands.py runs them). Light: parsed before anything heavy loads."""

from __future__ import annotations

import argparse

from client.ui.i18n import tr
from client.ui.options import add_db_option, add_user_option


def _turn_number(text: str) -> int:
    """--at N: a turn number, 1 or more."""
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(tr("1 이상의 턴 번호여야 합니다", "must be a turn number, 1 or more"))
    return int(text)


def add_commands(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> tuple[argparse.ArgumentParser, ...]:
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
    fo = sub.add_parser("fork", prog="mcp-chat fork", help=tr("세션 포크", "fork a session"),
                        description=tr("세션의 처음 N턴(기본: 전부)을 담은 새 세션을 만들고 그 ID를 출력합니다. 원래 세션은 그대로입니다.",
                                       "make a new session holding the first N turns (default: all) of a session and print its id; "
                                       "the session itself is unchanged"))
    fo.add_argument("thread", metavar="ID", help=tr("세션 ID (또는 고유한 앞부분)", "session id (or a unique prefix)"))
    fo.add_argument("--at", type=_turn_number, metavar="N", help=tr("처음 N턴까지 (기본: 전부)", "up to turn N (default: all)"))
    fo.add_argument("--name", metavar="NEW", help=tr("새 세션의 ID (기본: 새로 만든 ID)", "the new session's id (default: a generated one)"))
    add_db_option(fo)
    add_user_option(fo)  # the new session is theirs
    return th, ex, de, fo
