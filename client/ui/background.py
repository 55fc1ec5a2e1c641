"""`mcp-chat daemon start|status|stop` and `mcp-chat local status|stop`: the helpers that outlive a
session (the pre-imported processes, plumbing/forkserver and client/engine/daemon.py; the local model kept warm,
client/engine/local/keeper.py)."""

from __future__ import annotations

import argparse

from client.ui.i18n import t, tr


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    da = sub.add_parser("daemon", prog="mcp-chat daemon",
                        help=tr("미리 적재된 백그라운드 프로세스", "the pre-imported background process"),
                        description=tr("빠른 시작을 위해 모듈을 미리 적재해 두는 사용자별 프로세스 (MCP_CHAT_DAEMON=1 켬, 0 끔)",
                                       "the per-user process that keeps the modules imported for fast starts "
                                       "(MCP_CHAT_DAEMON=1 on, 0 off)"))
    da.add_argument("op", choices=("start", "status", "stop"),
                    help=tr("지금 띄우기(준비될 때까지 기다림), 상태 보기, 종료", "start it now (waits until it serves), show or stop it"))
    lo = sub.add_parser("local", prog="mcp-chat local",
                        help=tr("세션 뒤에도 켜 둔 로컬 모델 서버", "the local model server kept warm after a session"),
                        description=tr("MCP_CHAT_LOCAL_KEEP_ALIVE 초(기본 300, 0 이면 세션과 함께 종료) 동안 켜 두는 llama-server",
                                       "llama-server kept up for MCP_CHAT_LOCAL_KEEP_ALIVE seconds "
                                       "(default 300; 0 stops it with the session)"))
    lo.add_argument("op", choices=("status", "stop"), help=tr("상태 보기 또는 종료", "show or stop it"))


def _status(r: dict) -> None:
    print(t("daemon_status", kind=r.get("kind"), pid=r.get("pid"), served=r.get("served"),
            idle=r.get("idle"), timeout=r.get("idle_timeout"), root=r.get("root")))


def run_daemon(op: str) -> int:
    import os

    from client.engine.daemon import PROGRAM
    from plumbing.forkserver.control import control, start

    if op == "start":  # e.g. at login, or before a batch of runs: none of them starts cold
        r = start(PROGRAM, dict(os.environ))
        if r is None:
            print(t("daemon_not_started"))
            return 1
        _status(r)
        return 0
    replies = control(PROGRAM.rundir(), op)
    if not replies:
        print(t("daemon_none"))
    for r in replies:
        if op == "stop":
            print(t("daemon_stopped", kind=r.get("kind"), pid=r.get("stopped"), root=r.get("root")))
        else:
            _status(r)
    return 0


def run_local(op: str) -> int:
    from client.engine.local import keeper
    from client.ui.env_settings import dirs

    info = keeper.stop(dirs().cache) if op == "stop" else keeper.status(dirs().cache)
    if info is None:
        print(t("local_none"))
    elif op == "stop":
        print(t("local_stopped", pid=info.pid))
    else:
        print(t("local_status", pid=info.pid, socket=info.socket, keep=f"{info.keep_alive:g}"))
    return 0
