"""The session's thread: which one is open, its working context in the checkpointer, its transcript.

The checkpointer's state is the working context (what the model may still see); it is replaced,
not merged, when it changes, so trimming and summarizing change what reaches the endpoint. The
store's transcript keeps every message. A thread with a transcript but no working context (a fork
taken before its source's last turn, a rewound thread) gets it rebuilt from the transcript when it
is opened (client/core/forks.py). Also the plain-data operations the ui's thread commands use
(list, match: the one id-prefix rule, rename, export, delete, usage, fork, rewind), the commands
without a chat (`mcp-chat threads|export|delete|fork`) included.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage, SystemMessage

from client.core.context.quality import cut_loop
from client.core.context.turns import is_synthetic, text_of, with_ids
from client.core.forks import COVERS, context_at, mark_covers
from client.engine.forks import ForkStore, Rewound, check_new_id, delete_thread, fork_thread, rewind_thread
from client.engine.store import StoreError, ThreadInfo, TurnUsage

if TYPE_CHECKING:
    from client.engine.events import RequestStats
    from client.engine.models import Models


@dataclass(frozen=True)
class ThreadExport:
    info: ThreadInfo | None
    rows: list[tuple[int, BaseMessage]]


class Threads:
    """One open thread at a time (claimed in the store), and the store's other threads."""

    def __init__(self, store: ForkStore, models: Models | None = None, user: str = "",
                 system_prompt: Callable[[], Awaitable[str]] | None = None, base_prompt: str = "",
                 folding: Callable[[str], bool] = lambda _: False) -> None:
        """`folding(id)`: a memory pass of that thread is under way; leaving the thread, its claim
        stays with the pass, which lets it go when it ends (client/engine/memory/background.py).
        Without `models` (the thread commands, no chat): the plain-data operations only."""
        self.store = store
        self.folding = folding
        self.models = models  # the agent reads and writes the checkpointer's state
        self.user = user
        self.system_prompt = system_prompt  # a new thread's: the base prompt, plus memory
        self.base_prompt = base_prompt  # for a stored context that lost its system message
        self.id = ""

    @property
    def config(self) -> dict:
        return {"configurable": {"thread_id": self.id}}

    async def open(self, thread_id: str | None) -> bool:
        """Select a thread; returns True when it already existed. The thread stays
        claimed (store.lock_thread) until another is opened (or, when its memory pass is under
        way, until that ends) or the store closes; one open in another client raises
        StoreError("thread_busy")."""
        new_id = thread_id or uuid.uuid4().hex
        state = await self.state(new_id)  # a tampered checkpoint is refused now, nothing switched
        await self.check_open(new_id, state)
        if new_id != self.id:
            if not await self.store.lock_thread(new_id):
                raise StoreError("thread_busy", id=new_id)
            if self.id and not self.folding(self.id):
                await self.store.unlock_thread(self.id)
        self.id = new_id
        info = await self.store.get_thread(self.id)
        if info is not None and not state:  # a fork or a rewound thread: its context from its transcript
            rows = await self.store.transcript(self.id)
            if rows:
                await self.replace(context_at(rows, info.turns))
        return info is not None or bool(state)  # state only: a thread from an older client

    async def check_open(self, thread_id: str, state: list[BaseMessage]) -> None:
        """A thread is written by its owner only (another user's words would reach the owner's -c
        and memory): another user's is refused, naming them (a fork of it is the caller's own).
        A thread stored without an owner (an older client's) is anyone's. A new thread's id holds
        no known secret (client/engine/forks.py `check_new_id`)."""
        info = await self.store.get_thread(thread_id)
        if info is not None and info.user_name and info.user_name != self.user:
            raise StoreError("thread_not_yours", id=thread_id, owner=info.user_name)
        if info is None and not state:
            check_new_id(thread_id)

    async def drop_if_empty(self) -> bool:
        """The open thread, left without a turn (its first turn cancelled, /compact at once): every
        trace of it goes, so that no empty thread is listed or resumed. True when it went."""
        if not self.id:
            return False
        info = await self.store.get_thread(self.id)
        if info is not None and info.turns:
            return False
        state = await self.state()
        if (info is None and not state) or any(isinstance(m, HumanMessage) for m in state):
            return False  # nothing stored; or an older client's thread, kept only in the checkpointer
        await delete_thread(self.store, self.id)
        return True

    # -- the working context -------------------------------------------------------
    async def state(self, thread_id: str | None = None) -> list[BaseMessage]:
        """The working context as stored (of this thread, or of `thread_id`)."""
        config = {"configurable": {"thread_id": thread_id}} if thread_id else self.config
        snap = await self.models.current.agent.aget_state(config)
        return list((snap.values or {}).get("messages", [])) if snap else []

    async def load(self, msgs: list[BaseMessage] | None = None) -> list[BaseMessage]:
        """The stored working context, with the transcript brought up to date."""
        if msgs is None:
            msgs = await self.state()
        if not msgs:  # a new thread: its system message is written once, now
            await self.store.create_thread(self.id, self.user)
            msgs = [SystemMessage(content=await self.system_prompt(), id=str(uuid.uuid4()))]
        elif not isinstance(msgs[0], SystemMessage):
            msgs = [SystemMessage(content=self.base_prompt, id=str(uuid.uuid4())), *msgs]
        await self.record(msgs)
        return msgs

    async def record(self, msgs: list[BaseMessage]) -> None:
        """Append to the transcript every message it does not hold yet, in order."""
        with_ids(msgs)
        known = await self.store.known_ids(self.id, [m.id for m in msgs if m.id])
        new = [m for m in msgs if m.id not in known]
        if any(isinstance(m, AIMessage) and is_synthetic(m) for m in new):  # a new summary: what it covers
            info = await self.store.get_thread(self.id)
            marks = mark_covers(msgs, known, info.turns if info else 0)
            new = [m.model_copy(update={"additional_kwargs": {**m.additional_kwargs, COVERS: marks[m.id]}})
                   if m.id in marks else m for m in new]
        if new:
            await self.store.append(self.id, new)

    async def replace(self, context: list[BaseMessage]) -> None:
        """Make `context` the thread's working context (not merged: replaced)."""
        from langgraph.graph.message import REMOVE_ALL_MESSAGES  # the graph: not what the thread commands load

        await self.models.current.agent.aupdate_state(
            self.config, {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *context]}, as_node="model"
        )
        await self.record(context)
        await self.store.prune_checkpoints(self.id)

    async def finish_turn(self, final: list[BaseMessage], stats: RequestStats) -> None:
        """A turn ended well: its messages on the transcript, its usage, older checkpoints gone."""
        await self.record(final)
        info = await self.store.get_thread(self.id)
        await self.store.record_usage(
            self.id, TurnUsage(info.turns if info else 0, stats.input_total or None, stats.output_total or None, stats.estimated)
        )
        await self.store.prune_checkpoints(self.id)

    async def cut_loop(self, final: list[BaseMessage]) -> tuple[list[BaseMessage], bool]:
        """An answer that is a repetition loop is cut to its first round before it is stored."""
        last = final[-1] if final else None
        if not isinstance(last, AIMessage) or last.tool_calls:
            return final, False
        cut = cut_loop(text_of(last))
        if cut is None:
            return final, False
        fixed = last.model_copy(update={"content": cut})
        await self.models.current.agent.aupdate_state(self.config, {"messages": [fixed]}, as_node="model")
        return [*final[:-1], fixed], True

    # -- plain data for the ui's thread commands -------------------------------------------
    async def info(self, thread_id: str | None = None) -> ThreadInfo | None:
        """The stored thread (this one by default); None before its first turn."""
        return await self.store.get_thread(thread_id or self.id)

    async def list(self) -> list[ThreadInfo]:
        """Every stored thread, most recently active first."""
        return await self.store.list_threads()

    async def match(self, ref: str) -> list[str]:
        """Thread ids `ref` names: itself when it exists, else every id it is a prefix of (none for "")."""
        if await self.store.get_thread(ref) is not None:
            return [ref]
        return [th.thread_id for th in await self.store.list_threads() if ref and th.thread_id.startswith(ref)]

    async def delete(self, thread_id: str) -> bool:
        """False when there was no such thread; StoreError("thread_busy") when another client has it
        open. What its forks still hold passes to them (client/engine/forks.py `hand_over`)."""
        return await delete_thread(self.store, thread_id)

    async def rename(self, title: str) -> None:
        await self.store.set_title(self.id, title)  # the store masks it, then cuts it (codec.stored_title)

    async def export(self, thread_id: str | None = None) -> ThreadExport:
        tid = thread_id or self.id
        return ThreadExport(await self.store.get_thread(tid), await self.store.transcript(tid))

    async def usage(self) -> list[TurnUsage]:
        """Per turn, the tokens the API reported for this thread."""
        return await self.store.usage(self.id)

    # -- fork and rewind (client/engine/forks.py) ------------------------------------------
    async def fork(self, source: str | None = None, *, at: int | None = None, new_id: str | None = None) -> str:
        """A new thread of this user's holding the first `at` turns (default: all) of `source` (default:
        this one, which may be another user's); returns its id. Nothing is opened: the caller switches to it."""
        return await fork_thread(self.store, source or self.id, owner=self.user, at=at, new_id=new_id)

    async def rewind(self, n: int = 1) -> Rewound:
        """This thread's last `n` turns leave what the model sees next (they are kept in
        Rewound.backup, a thread of their own); the working context is the one after the turn before."""
        done = await rewind_thread(self.store, self.id, n)
        await self.replace(done.context)
        return done

    async def still_held(self) -> bool:
        """Is this thread still ours (client/engine/store/base.py `still_holds`)? Asked before a turn writes."""
        return not self.id or await self.store.still_holds(self.id)
