"""Piped stdin, read line by line (at a terminal prompt_toolkit reads: client/ui/tui.py)."""

from __future__ import annotations

import asyncio
import os
import sys
import threading


class LineReader:
    """stdin lines on a daemon thread, so a blocked read never holds up exit.

    Undecodable bytes are replaced; None means EOF.
    """

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def emit(raw: bytes | None) -> None:
            line = None if raw is None else raw.decode("utf-8", errors="replace").rstrip("\r\n")
            loop.call_soon_threadsafe(self.queue.put_nowait, line)

        def pump() -> None:
            # os.read on the raw fd: a thread blocked here holds no Python I/O
            # lock, so interpreter shutdown never waits on it.
            fd, pending = sys.stdin.fileno(), b""
            while chunk := _read(fd):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for raw in lines:
                    emit(raw)
            if pending:
                emit(pending)
            emit(None)

        threading.Thread(target=pump, name="stdin", daemon=True).start()

    async def read(self, prompt: str | None = None, *, main: bool = False) -> str | None:
        if prompt and sys.stdin.isatty():
            out = sys.stdout if sys.stdout.isatty() else sys.stderr  # stdout keeps only answers
            out.write(prompt)
            out.flush()
        line = await self.queue.get()
        if line is None:
            self.queue.put_nowait(None)  # stay at EOF
        return line



def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:
        return b""
