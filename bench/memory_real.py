"""Cross-thread memory on a real model: are the user's facts kept, and the assistant's inventions not?

    flock /tmp/mcp-chat-llama.lock python bench/memory_real.py            # local model, ~20-40 min on 2 busy cores
    python bench/memory_real.py --provider stub                           # the recording stub: a dry run
    python bench/memory_real.py --configs both,user --users ko-minho      # a subset

Plays tests/data/memory_real.json (3 Korean and 3 English users; each one thread in which the user
states lasting facts of several kinds among chit-chat and requests, and the scripted assistant names
places and people the user never mentioned) through the real pipeline: transcript store,
MemoryManager.update (extraction request, the shipped light scorer, threshold 0.5 / top-5), then the
memory section a new thread of that user gets. Counts facts kept (a keyword of the fact in the
section), the assistant's inventions kept (an invention's keyword in it), items with not one content
word of the user's turns (the extractor's own inventions, echoes of the request), and the
section's tokens, for:

- before: the previous extraction (its prompt, the assistant's answers shown, no grounding test);
- before + grounding: the same answers, kept only when grounded in the user's turns;
- llm: the new prompt (the user's turns only), grounded items only;
- user: the user's own statements, no request (client/core/memory/statements.py; the local
  provider's default);
- both: grounded items plus the statements they do not cover (the default of other providers).

Temperature 0. Extraction seconds are noisy on a shared machine; the counts are what matter.
`--dump FILE` writes every extraction answer and section as JSON, to read what the model wrote.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import re
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage  # noqa: E402

from client.core.config import Settings  # noqa: E402
from client.core.context.budget import estimate_text_tokens  # noqa: E402
from client.core.memory.candidates import Candidates, choose  # noqa: E402
from client.core.memory.ground import Vocabulary, words  # noqa: E402
from client.core.memory.parse import ENV_NAME, parse_bullets, user_turns  # noqa: E402
from client.core.memory.policy import Bullet, FormatError  # noqa: E402
from client.engine.memory import extract  # noqa: E402
from client.engine.memory.manager import MemoryManager  # noqa: E402
from client.engine.memory.scorer import score_texts  # noqa: E402
from client.engine.store import open_store  # noqa: E402

DATA = ROOT / "tests" / "data" / "memory_real.json"
CONFIGS = ("before", "before+ground", "llm", "user", "both")
LABELS = {"before": "before: previous prompt, assistant shown, no grounding",
          "before+ground": "before + grounding test",
          "llm": "LLM, user turns only, grounded",
          "user": "user: the user's own statements, no request (local default)",
          "both": "both: grounded LLM + statements it does not cover (other providers' default)"}
# the extraction prompt main had before this change (for the "before" rows)
BEFORE_PROMPT = (
    "당신은 대화 기록에서 장기 기억 후보를 뽑는 도우미입니다. 아래 대화에서 이 사용자와의 다음 대화에 "
    "도움이 될 만한 사실을 짧은 문장 항목으로 뽑으세요: 선호와 취향, 개인 정보, 진행 중인 일과 약속, "
    "조건과 제약. 각 항목에 근거가 된 턴 번호를 붙이세요.\n"
    "형식(이 형식만 출력): 한 줄에 하나씩 `- [턴 번호, ...] 내용`. 뽑을 것이 없으면 `없음` 한 줄.\n"
    "예시:\n- [턴 1] 사용자는 채식주의자라 고기를 먹지 않는다.\n- [턴 2, 3] 사용자는 다음 주 목요일에 부산으로 출장을 간다."
)
BEFORE_LINES = BEFORE_PROMPT.splitlines()
_BEFORE_SELF = re.compile(r"(^|[\s:])(나는|난 |내가|내 |나의|저는|전 |제가|제 |저의|우리 |기억해)|\b(I|I'm|I am|my|My|we|We|our|Our)\b")
ANSWERS: list[dict] = []  # every extraction answer, for --dump


def _before_statements(rows: Sequence[tuple[int, BaseMessage]]) -> list[Bullet]:
    """The previous fallback: whole user lines with a self marker, not questions."""
    out = []
    for t, text in user_turns(rows).items():
        line = " ".join(text.split())
        if line and len(line) <= 200 and not line.endswith("?") and _BEFORE_SELF.search(line) and not ENV_NAME.search(line):
            out.append(Bullet(f"사용자의 말: {line}", [t]))
    return out[-5:]


class Recording:
    """Wraps the model: keeps each extraction answer (for --dump) and the seconds spent."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.seconds = 0.0
        self.requests = 0

    async def ainvoke(self, messages: list, *args: Any, **kw: Any) -> Any:
        started = time.perf_counter()
        reply = await self.model.ainvoke(messages, *args, **kw)
        self.seconds += time.perf_counter() - started
        self.requests += 1
        ANSWERS.append({"system": str(messages[0].content)[:80], "body": str(messages[-1].content),
                        "answer": str(reply.content)})
        return reply


class Summarizer:
    """Stands for the session's model owner (client/engine/models.py): memory asks its summarizer."""

    def __init__(self, model: Any) -> None:
        self.current = SimpleNamespace(summarizer=model)


class BenchManager(MemoryManager):
    """MemoryManager with the bench's extraction variants."""

    config = "both"

    async def extract(self, rows: Sequence[tuple[int, Any]], model: Any, source: Any = None) -> Candidates:
        if self.config not in ("before", "before+ground"):
            return await super().extract(rows, model, source)
        session = extract.render_session(rows, assistant=True)
        try:
            answer = await extract._ask(model, BEFORE_PROMPT, session, parse_bullets)
        except FormatError:
            answer = None
        if self.config == "before+ground":
            return choose("llm", answer, rows, BEFORE_LINES)
        return Candidates(answer if answer is not None else _before_statements(rows))

    async def _score(self, bullets: list[Bullet], model: Any = None) -> list[float]:
        if self.config == "before":  # the previous scorer input: the text as stored, prefix included
            return [round(s, 4) for s in score_texts([b.text for b in bullets])]
        return await super()._score(bullets, model)


@dataclass
class Row:
    config: str
    facts: int = 0
    facts_kept: int = 0
    inventions: int = 0
    inventions_kept: int = 0
    unsupported: int = 0  # stored items with not one word of the user's
    tokens: list[int] = field(default_factory=list)
    requests: int = 0
    seconds: float = 0.0
    sections: dict[str, str] = field(default_factory=dict)
    missed: list[str] = field(default_factory=list)
    invented: list[str] = field(default_factory=list)


def thread_messages(turns: list[list[str]]) -> list[BaseMessage]:
    msgs: list[BaseMessage] = [SystemMessage("시스템", id=uuid.uuid4().hex)]
    for user, assistant in turns:
        msgs += [HumanMessage(user, id=uuid.uuid4().hex), AIMessage(assistant, id=uuid.uuid4().hex)]
    return msgs


def judge(section: str, user: dict) -> tuple[list[str], list[str], list[str], list[str]]:
    """(facts kept, facts missed, inventions kept, items with no word of the user's) by keyword."""
    low = section.lower()
    kept = [k for k, words in user["facts"].items() if any(w.lower() in low for w in words)]
    missed = [k for k in user["facts"] if k not in kept]
    invented = [w for w in user["inventions"] if w.lower() in low]
    said = Vocabulary(u for u, _ in user["turns"])
    items = [ln[2:] for ln in section.splitlines() if ln.startswith("- ")]
    unsupported = [it for it in items if not any(said.has(w) for w in words(it))]
    return kept, missed, invented, unsupported


async def run_config(config: str, model: Any, users: list[dict], tmp: str, budget: int) -> Row:
    store = await open_store(f"{tmp}/{config}.db")
    rec = Recording(model)
    row = Row(config)
    try:
        for u in users:
            tid = uuid.uuid4().hex
            await store.create_thread(tid, u["user"])
            await store.append(tid, thread_messages(u["turns"]))
            mem = BenchManager(store, Summarizer(rec), u["user"], budget_tokens=budget,  # type: ignore[arg-type]
                               source=config if config in ("llm", "user", "both") else "both")
            mem.config = config
            n = len(ANSWERS)
            up = await mem.update(tid)
            for a in ANSWERS[n:]:
                a.update(config=config, user=u["user"])
            if up is not None and up.error:
                print(f"  {config} {u['user']}: {up.error}", file=sys.stderr)
            section = await mem.section()
            kept, missed, invented, unsupported = judge(section, u)
            row.facts += len(u["facts"])
            row.facts_kept += len(kept)
            row.inventions += len(u["inventions"])
            row.inventions_kept += len(invented)
            row.unsupported += len(unsupported)
            row.tokens.append(estimate_text_tokens(section))
            row.sections[u["user"]] = section
            row.missed += [f"{u['user']}:{k}" for k in missed]
            row.invented += [f"{u['user']}:{w}" for w in invented]
            print(f"  {config:14} {u['user']:11} facts {len(kept)}/{len(u['facts'])} inventions {len(invented)}"
                  f" unsupported {len(unsupported)}"
                  f" tokens {row.tokens[-1]}", file=sys.stderr, flush=True)
    finally:
        await store.close()
    row.requests, row.seconds = rec.requests, rec.seconds
    return row


def table(rows: list[Row], users: list[dict]) -> str:
    langs = sorted({u["lang"] for u in users})
    per_lang = ", ".join(f"{sum(u['lang'] == lang for u in users)} {lang}" for lang in langs)
    out = [f"users: {len(users)} ({per_lang}), "
           f"facts: {rows[0].facts}, inventions offered: {rows[0].inventions}", "",
           "| extraction | facts kept | assistant's inventions kept | items with no word of the user's "
           "| memory tokens / user | extraction requests | request seconds |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        tokens = sum(r.tokens) / len(r.tokens) if r.tokens else 0
        out.append(f"| {LABELS[r.config]} | {r.facts_kept}/{r.facts} | {r.inventions_kept} | {r.unsupported} | {tokens:.0f} "
                   f"| {r.requests} | {r.seconds:.0f} |")
    return "\n".join(out)


def settings_for(provider: str, base_url: str | None) -> Settings:
    from client.ui.options import add_chat_options, resolve

    p = argparse.ArgumentParser()
    add_chat_options(p)
    argv = ["--provider", "openai" if provider == "stub" else provider]
    if provider == "stub":
        argv += ["--base-url", base_url or "", "--model", "stub"]
        os.environ.setdefault("OPENAI_MODEL", "stub")
    s = resolve(p.parse_args(argv))
    return dataclasses.replace(s, timeout=max(s.timeout, 600.0))  # a loaded shared machine


async def main_async(args: argparse.Namespace) -> list[Row]:
    from client.engine.providers import build_model, get_provider
    from client.ui.local_setup import StartFrontend

    os.environ.setdefault("MCP_CHAT_TEMPERATURE", "0")
    os.environ.setdefault("MCP_CHAT_SUMMARY_SERVER", "0")  # one server: the bench measures extraction
    users = json.loads(DATA.read_text(encoding="utf-8"))["users"]
    if args.users:
        users = [u for u in users if u["user"] in args.users.split(",")]
    stub = None
    if args.provider == "stub":
        from tests.stubs.llm_stub import LLMStub

        stub = LLMStub().start()
    try:
        s = settings_for(args.provider, stub.base_url if stub else None)
        rows: list[Row] = []
        async with get_provider(s.provider).runtime(s, StartFrontend()) as rt:
            model = build_model(s, rt, with_tools=False, role="summary")
            with tempfile.TemporaryDirectory() as tmp:
                for config in args.configs.split(","):
                    rows.append(await run_config(config, model, users, tmp, s.memory_budget))
        print(table(rows, users))
        for r in rows:
            if r.missed or r.invented:
                print(f"\n{r.config}: missed {', '.join(r.missed) or '-'}; invented {', '.join(r.invented) or '-'}")
        if args.dump:
            Path(args.dump).write_text(json.dumps({"answers": ANSWERS, "sections": {r.config: r.sections for r in rows}},
                                                  ensure_ascii=False, indent=1), encoding="utf-8")
        return rows
    finally:
        if stub is not None:
            stub.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--provider", default="local", choices=("local", "openai", "clova", "stub"))
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--users", default="", help="comma-separated user names of the data file (default: all)")
    ap.add_argument("--dump", default="", help="write the extraction answers and sections to this JSON file")
    args = ap.parse_args()
    bad = [c for c in args.configs.split(",") if c not in CONFIGS]
    if bad:
        ap.error(f"unknown config(s) {bad}; choose from {CONFIGS}")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
