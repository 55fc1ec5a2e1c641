"""Background tasks whose failure is the business of whoever takes their result."""

from __future__ import annotations

import asyncio
from typing import Any, Coroutine, TypeVar

T = TypeVar("T")


def background(coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """A task on the running loop that asyncio never reports ("exception was never retrieved"):
    a failed background summary is reported by the turn that takes it, a failed warm-up by nobody."""
    task = asyncio.get_running_loop().create_task(coro)
    task.add_done_callback(_quiet)
    return task


def _quiet(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()
