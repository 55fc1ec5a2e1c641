"""Long-term memory of one user: fold a thread's new turns in, the section for new threads."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, Sequence

from client.core.faults import one_line
from client.core.memory.candidates import SOURCES, Candidates, Source, statements
from client.core.memory.policy import Bullet, merge, pack, select
from client.core.memory.statements import junk_item, scoring_text
from client.core.secrets import known
from client.engine.memory.extract import extract_candidates, score_bullets
from client.engine.memory.scorer import SCORERS, score_texts
from client.engine.store import Claims, MemoryRows, ThreadLog

if TYPE_CHECKING:
    from client.engine.models import Models

PROVISIONAL_THREADS = 3  # unfolded threads whose statements a new thread's section carries
BACKLOG = 8  # pending threads that get a full pass (extraction request); older ones get the request-free one


def backlog(pending: Sequence[str], bound: int = BACKLOG) -> tuple[list[str], list[str]]:
    """(full, cheap) of a user's pending threads, least recent first: the `bound` most recent get a
    full pass; the older ones only the request-free pass (the user's own statements, scored
    locally), so the waiting list never outgrows the bound and nothing is dropped unread."""
    cut = max(0, len(pending) - max(0, bound))
    return list(pending[cut:]), list(pending[:cut])


@dataclass
class MemoryUpdate:
    added: int = 0
    updated: int = 0
    candidates: int = 0
    unscored: bool = False
    error: str | None = None


class MemoryStore(MemoryRows, ThreadLog, Claims, Protocol):
    """What memory passes use of a store: the items, the threads' transcripts, their claims."""


class MemoryManager:
    def __init__(self, store: MemoryStore, models: Models, user: str, *, threshold: float = 0.5,
                 top_k: int = 5, budget_tokens: int = 600, scorer: str = "local", source: Source = "both") -> None:
        if scorer not in SCORERS:
            raise ValueError(f"scorer must be one of {SCORERS}")
        if source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}")
        self.store = store
        self.models = models  # extraction and llm scoring use the session's current summarizer
        self.user = user
        self.threshold = threshold
        self.top_k = top_k
        self.budget_tokens = budget_tokens
        self.scorer = scorer
        self.source = source

    @property
    def asks_model(self) -> bool:
        """Does a pass make model requests (extraction or scoring)? Without, it takes milliseconds."""
        return self.source != "user" or self.scorer == "llm"

    async def section(self) -> str:
        """What a new thread's system message carries: the stored items, and the user's own
        statements from turns not folded in yet (their pass may still be running or deferred:
        no model call, so a new thread never waits for it)."""
        stored = [b for b in await self.store.memory_list(self.user) if not junk_item(b.text)]  # rows not rechecked yet
        to_add, _ = merge(stored, await self.provisional())
        return pack([*stored, *to_add], self.budget_tokens)

    async def recheck(self) -> int:
        """Once per item, after an upgrade: the items an older version kept that the current rules
        would not (a command, code, a log line, a one-word reply: structure.py) are dropped, the
        others marked checked. Returns how many were dropped."""
        items = await self.store.memory_unchecked(self.user)
        drop = [b.id for b in items if b.id is not None and junk_item(b.text)]
        keep = [b.id for b in items if b.id is not None and b.id not in drop]
        if items:
            await self.store.memory_checked(self.user, drop, keep)
        return len(drop)

    async def pending(self) -> list[str]:
        """This user's threads with turns not folded into memory yet, least recent first."""
        return await self.store.memory_pending(self.user)

    async def provisional(self) -> list[Bullet]:
        out: list[Bullet] = []
        for tid in (await self.pending())[-PROVISIONAL_THREADS:]:
            rows = await self._unfolded(tid)
            own = statements(rows, known())
            for b, s in zip(own, score_texts([scoring_text(b.text) for b in own])):
                b.score, b.thread_id = round(s, 4), tid
            out += select(own, self.threshold, self.top_k)
        return out

    async def _unfolded(self, thread_id: str) -> list[tuple[int, Any]]:
        done = await self.store.memory_turn(thread_id)
        return [(t, m) for t, m in await self.store.transcript(thread_id) if t > done]

    async def update(self, thread_id: str, model: Any = None, *, cheap: bool = False) -> MemoryUpdate | None:
        """Fold the thread's turns since the last update into memory. None: nothing new.
        `model`: the one to ask (default: the session's current summarizer); `cheap`: no request,
        the user's own statements only (an old thread past the backlog's bound). Cancelled while the model
        answers, nothing is written and the turns stay pending; the writes themselves are not
        interrupted by a cancel (shielded)."""
        if await self.store.get_thread(thread_id) is None:
            return None
        rows = await self._unfolded(thread_id)
        last = max((t for t, _ in rows), default=0)
        if not last:
            return None
        result = MemoryUpdate()
        try:
            found = await self.extract(rows, model or self.models.current.summarizer, "user" if cheap else self.source)
        except Exception as e:  # noqa: BLE001 - memory is best effort; the chat is not
            result.error = one_line(e)
            return result
        bullets = found.all()
        if bullets:
            try:
                for b, s in zip(bullets, await self._score(bullets, model)):
                    b.score = s
            except Exception:  # noqa: BLE001 - format or request failure: keep them unscored, say so
                result.unscored = True
            for b in bullets:
                b.thread_id = thread_id
        candidates = found.combined(self.threshold)
        result.candidates = len(candidates)
        await asyncio.shield(self._commit(thread_id, select(candidates, self.threshold, self.top_k), last, result))
        return result

    async def extract(self, rows: Sequence[tuple[int, Any]], model: Any, source: Source | None = None) -> Candidates:
        """The candidates of the unfolded turns (client/core/memory/candidates.py)."""
        return await extract_candidates(model, rows, known(), source or self.source)

    async def needs_model(self, thread_id: str) -> bool:
        """Would a pass of the thread ask the model? (the user stated something, and the source or
        the scorer asks one)"""
        return self.asks_model and bool(statements(await self._unfolded(thread_id)))

    async def _commit(self, thread_id: str, kept: Sequence[Bullet], last: int, result: MemoryUpdate) -> None:
        """Write what the pass kept and move the thread's watermark to `last`, both bounded by the
        turns the thread holds now: turns taken out while the pass ran (a rewind elsewhere, a
        delete) are folded by the thread that keeps them, if any; the watermark never passes the
        turn count, so the thread's next turns are folded."""
        info = await self.store.get_thread(thread_id)
        turns = info.turns if info is not None else 0
        kept = [b for b in kept if info is not None and (not b.sources or min(b.sources) <= turns)]
        if kept:
            to_add, updated = merge(await self.store.memory_list(self.user), kept)
            await self.store.memory_add(self.user, to_add)
            await self.store.memory_update(updated)
            result.added, result.updated = len(to_add), len(updated)
        await self.store.set_memory_turn(thread_id, min(last, turns))

    async def _score(self, bullets: list[Bullet], model: Any = None) -> list[float]:
        if self.scorer == "llm":
            return await score_bullets(model or self.models.current.summarizer, bullets)
        return [round(s, 4) for s in score_texts([scoring_text(b.text) for b in bullets])]

    async def note(self, key: str) -> bool:
        """A one-time notice for this user: True the first time (show it), False after."""
        return await self.store.memory_note(self.user, key)

    async def forget(self, index: int) -> Bullet | None:
        """Delete the index-th (1-based) bullet as listed by /memory."""
        items = await self.list()
        if not 1 <= index <= len(items):
            return None
        b = items[index - 1]
        assert b.id is not None
        await self.store.memory_delete(self.user, b.id)
        return b

    async def list(self) -> list[Bullet]:
        items = await self.store.memory_list(self.user)
        return sorted(items, key=lambda b: -(b.score if b.score is not None else -1.0))
