"""Long-term memory of one user: update at thread end, section for new threads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from client.core.faults import one_line
from client.core.secrets import env_secrets
from client.engine.store import Store
from client.engine.memory.extract import extract_bullets, score_bullets
from client.core.memory.policy import Bullet, merge, pack, select
from client.engine.memory.scorer import SCORERS, score_texts

if TYPE_CHECKING:
    from client.engine.models import Models


@dataclass
class MemoryUpdate:
    added: int = 0
    updated: int = 0
    candidates: int = 0
    unscored: bool = False
    error: str | None = None


class MemoryManager:
    def __init__(self, store: Store, models: Models, user: str, *, threshold: float = 0.5,
                 top_k: int = 5, budget_tokens: int = 600, scorer: str = "local") -> None:
        if scorer not in SCORERS:
            raise ValueError(f"scorer must be one of {SCORERS}")
        self.store = store
        self.models = models  # extraction and llm scoring use the session's current summarizer
        self.user = user
        self.threshold = threshold
        self.top_k = top_k
        self.budget_tokens = budget_tokens
        self.scorer = scorer

    async def section(self) -> str:
        return pack(await self.store.memory_list(self.user), self.budget_tokens)

    async def update(self, thread_id: str) -> MemoryUpdate | None:
        """Fold the thread's turns since the last update into memory. None: nothing new."""
        info = await self.store.get_thread(thread_id)
        if info is None:
            return None
        done = await self.store.memory_turn(thread_id)
        rows = [(t, m) for t, m in await self.store.transcript(thread_id) if t > done]
        if not any(t for t, _ in rows):
            return None
        result = MemoryUpdate()
        try:
            bullets = await extract_bullets(self.models.current.summarizer, rows, env_secrets())
        except Exception as e:  # noqa: BLE001 - memory is best effort; the chat is not
            result.error = one_line(e)
            return result
        result.candidates = len(bullets)
        if bullets:
            try:
                for b, s in zip(bullets, await self._score(bullets)):
                    b.score = s
            except Exception:  # noqa: BLE001 - format or request failure: keep them unscored, say so
                result.unscored = True
            for b in bullets:
                b.thread_id = thread_id
            kept = select(bullets, self.threshold, self.top_k)
            to_add, updated = merge(await self.store.memory_list(self.user), kept)
            await self.store.memory_add(self.user, to_add)
            await self.store.memory_update(updated)
            result.added, result.updated = len(to_add), len(updated)
        await self.store.set_memory_turn(thread_id, info.turns)
        return result

    async def _score(self, bullets: list[Bullet]) -> list[float]:
        if self.scorer == "llm":
            return await score_bullets(self.models.current.summarizer, bullets)
        return [round(s, 4) for s in score_texts([b.text for b in bullets])]

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
