"""LoCoMo through the client: do facts survive the context policies on a public benchmark?

A LoCoMo-format conversation (../shared/data/locomo/README.md; the data stays there, this script
takes its path) is imported into a thread the way `mcp-chat import` does
(client/engine/importer.py: speaker A is the user, B the assistant, a dated note per session, a
photo's caption as text). Per policy the thread is prepared once (summarize: the thread's
rolling summary, made by the same code a user's thread runs, /compact's path), then every
question is a new user turn in a fork of that prepared thread (no question sees another's
answer), through ChatSession's normal turn, with one fixed instruction for every policy. The
prepared context is the same bytes for all of a policy's questions, so llama-server's prompt
cache keeps the shared prefix.

    python bench/locomo.py --data ../shared/data/locomo/locomo-dev.json --conversation conv-26 \
        --sessions 6 --questions 30 --json /tmp/conv-26.json
    python bench/locomo.py ... --provider stub     # the recording stub: a dry run of the harness (seconds)

Policies: `full` (nothing dropped: a llama-server of the same model with a window large enough,
16-32K), `trim` (default M) and `summarize` (default N/M), both with the local model's usual
budget. Scores: token F1 with SQuAD normalization (Hangul tokens also lose a trailing particle),
over categories 1-4; category 5 (adversarial) is not asked. `early`: the question's evidence lies
wholly in the first half of the sessions used. Real-model runs take /tmp/mcp-chat-llama.lock:
`flock /tmp/mcp-chat-llama.lock python bench/locomo.py ...`.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.locomo_score import Question, f1, pick_questions  # noqa: E402
from client.core.config import ContextSettings, Settings  # noqa: E402
from client.core.context.rolling import notes_of  # noqa: E402
from client.core.context.speakers import session_note_of  # noqa: E402
from client.core.context.turns import is_synthetic, text_of  # noqa: E402
from client.core.transcripts import Imported, parse_document  # noqa: E402
from client.engine.build import build_session  # noqa: E402
from client.engine.events import Notice, TurnDone  # noqa: E402
from client.engine.forks import fork_thread  # noqa: E402
from client.engine.importer import import_conversation  # noqa: E402
from client.engine.runtime import Runtime  # noqa: E402
from client.engine.store import open_store  # noqa: E402

POLICIES = {"full": ("none", None), "trim": ("trim", None), "summarize": ("summarize", None)}  # defaults M, N
INSTRUCTION = {"en": "Answer in a few words.", "ko": "몇 단어로 짧게 답하세요."}
FULL_CTX_MIN, FULL_CTX_MAX = 8_192, 32_768


@dataclass
class PolicyRun:
    name: str
    answers: list[dict] = field(default_factory=list)
    request_tokens: list[int] = field(default_factory=list)
    empty_summaries: int = 0
    summary_notices: list[str] = field(default_factory=list)
    summary_tokens: int = 0
    prepare_s: float = 0.0
    total_s: float = 0.0

    def f1(self, which: bool | None = None) -> float | None:
        xs = [a["f1"] for a in self.answers if which is None or a["early"] is which]
        return sum(xs) / len(xs) if xs else None

    def doc(self) -> dict:
        mean = sum(self.request_tokens) / len(self.request_tokens) if self.request_tokens else 0
        return {"f1": self.f1(), "f1_early": self.f1(True), "f1_late": self.f1(False),
                "request_tokens_mean": round(mean, 1), "empty_summaries": self.empty_summaries,
                "minutes": round(self.total_s / 60, 2), "prepare_minutes": round(self.prepare_s / 60, 2),
                "summary_tokens": self.summary_tokens, "summary_notices": self.summary_notices,
                "answers": self.answers}


def settings_for(provider: str, base_url: str, answer_tokens: int, policy: str, full_budget: int) -> Settings:
    from client.ui.options import add_chat_options, resolve

    p = argparse.ArgumentParser()
    add_chat_options(p)
    argv = ["--provider", "openai" if provider == "stub" else provider, "--no-memory"]
    if provider == "stub":
        argv += ["--base-url", base_url, "--model", "stub"]
    s = resolve(p.parse_args(argv), interactive=False)  # a script: a summary the turn needs is waited for
    strategy, max_turns = POLICIES[policy]
    s = dataclasses.replace(s, context=ContextSettings(strategy, max_turns, s.context.summary_after),  # type: ignore[arg-type]
                            max_output_tokens=min(s.max_output_tokens, answer_tokens), timeout=max(s.timeout, 900.0))
    if policy == "full":
        s = dataclasses.replace(s, max_input_tokens=full_budget, budget_explicit=True)
    return s


def committed_bad_summaries(rows: list[tuple[int, Any]]) -> int:
    """Summary pairs in the transcript that are empty, or only the fallback: no line the model
    wrote, only verbatim notes and session headers (`[Session 2 · ...]`, which a section carries
    whether or not the model wrote anything under it)."""
    bad = 0
    for _, m in rows:
        if is_synthetic(m) and m.type == "ai":
            lines = [ln.strip() for ln in text_of(m).splitlines() if ln.strip()]
            lines = [ln for ln in lines if not _is_header(ln)]
            if not lines or len(notes_of("\n".join(lines))) == len(lines):
                bad += 1
    return bad


def _is_header(line: str) -> bool:
    note = session_note_of(line)
    return note is not None and not line[len(note):].strip()


async def run_policy(policy: str, conv: Imported, questions: list[Question], runtime: Runtime, args: argparse.Namespace,
                     db: str, full_budget: int) -> PolicyRun:
    s = settings_for(args.provider, runtime.base_url, args.answer_tokens, policy, full_budget)
    run, started = PolicyRun(policy), time.perf_counter()
    store = await open_store(db)
    try:
        tid = await import_conversation(store, conv, user=s.user, system_prompt=s.system_prompt)
        session = build_session(s, store, [], runtime=runtime)  # as the client builds it (no MCP tools here)
        await session.open(tid)
        if policy == "summarize":  # the thread's rolling summaries, made before any question
            async for ev in session.compact():
                if isinstance(ev, Notice):
                    run.summary_notices.append(f"{ev.key} ({ev.fmt['why']})" if ev.fmt.get("why") else ev.key)
            summary = await session.current_summary() or ""
            run.summary_tokens = _tokens(summary)
            if args.verbose:
                print(f"  [summary, {run.summary_tokens} tokens, notices {run.summary_notices}]\n" + summary, flush=True)
        run.empty_summaries = committed_bad_summaries(await store.transcript(tid))
        run.prepare_s = time.perf_counter() - started
        lang = conv.lang
        for i, q in enumerate(questions):
            # a fork at the last turn copies the prepared checkpoint: every question gets these bytes
            fork = await fork_thread(store, tid, owner=session.threads.user, new_id=f"{tid}-q{i}")
            await session.open(fork)
            answer, done = "", None
            async for ev in session.turn(f"{q.question} {INSTRUCTION[lang]}"):
                if isinstance(ev, TurnDone):
                    done = ev
                elif isinstance(ev, Notice) and ev.key.startswith("summar"):
                    run.summary_notices.append(ev.key)
                elif hasattr(ev, "delta"):
                    answer += ev.delta
            tokens = (done.stats.reported or done.stats.estimated) if done else 0
            run.request_tokens.append(tokens)
            score = f1(answer, q.gold, lang)
            run.answers.append({"question": q.question, "gold": q.gold, "answer": answer.strip(), "f1": round(score, 4),
                                "early": q.early, "category": q.category, "request_tokens": tokens})
            if args.verbose:
                print(f"  [{policy} {i + 1}/{len(questions)}] f1 {score:.2f} {'early' if q.early else 'late '} "
                      f"{tokens} tok | {q.question} | gold {q.gold!r} | {answer.strip()[:80]!r}", flush=True)
        session.summaries.cancel()
    finally:
        await store.close()
    run.total_s = time.perf_counter() - started
    return run


def _tokens(text: str) -> int:
    from client.core.context.budget import estimate_text_tokens

    return estimate_text_tokens(text)


def load(path: str, conversation: str, sessions: int | None) -> tuple[Imported, list[dict]]:
    with open(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8"))
    conv = parse_document(doc, conversation=conversation, sessions=sessions)[0]
    samples = doc if isinstance(doc, list) else [doc]
    qa = next(d for d in samples if d.get("sample_id", "") == conversation or conv.source_id == d.get("sample_id")).get("qa", [])
    return conv, qa


def full_window(conv: Imported) -> int:
    """A window for `full`: the conversation, the question and the answer, with the tokenizer's
    margin; 8-32K in steps of 4K."""
    from client.core.context.budget import estimate_messages_tokens

    need = int(estimate_messages_tokens(conv.messages) * 1.35) + 2_048
    return max(FULL_CTX_MIN, min(FULL_CTX_MAX, -(-need // 4_096) * 4_096))


async def main_async(args: argparse.Namespace) -> dict:
    # full's first question reads the whole conversation before its first token: minutes on a busy machine
    os.environ.setdefault("LANGCHAIN_OPENAI_STREAM_CHUNK_TIMEOUT_S", "900")
    conv, qa = load(args.data, args.conversation, args.sessions)
    questions = pick_questions(qa, conv.sessions, args.questions)
    policies = [p for p in args.policies.split(",") if p]
    unknown = [p for p in policies if p not in POLICIES]
    if unknown:
        raise SystemExit(f"unknown policy: {', '.join(unknown)} (full, trim, summarize)")
    ctx = full_window(conv)
    print(f"[{conv.source_id}] {conv.sessions} sessions, {len(conv.messages)} messages, {len(questions)} questions "
          f"({sum(q.early for q in questions)} early), full window {ctx}", flush=True)
    out: dict[str, Any] = {"provider": args.provider, "model": "", "conversation": conv.source_id,
                           "sessions": conv.sessions, "questions": len(questions), "policies": {}}
    async with _runtime(args, ctx) as (runtime, model):
        out["model"] = model
        with tempfile.TemporaryDirectory() as tmp:
            for policy in policies:
                r = await run_policy(policy, conv, questions, runtime, args, str(Path(tmp) / f"{policy}.db"), ctx - 1_024)
                out["policies"][policy] = r.doc()
                print(f"[{conv.source_id}/{policy}] F1 {_f(r.f1())} (early {_f(r.f1(True))}, late {_f(r.f1(False))}), "
                      f"request tokens {out['policies'][policy]['request_tokens_mean']}, bad summaries {r.empty_summaries}, "
                      f"{r.total_s / 60:.1f} min (prepare {r.prepare_s / 60:.1f})", flush=True)
    return out


class _runtime:
    """The model server: the recording stub, or a llama-server of the local model with a window
    for `full` (two slots like the client's own: the chat keeps slot 0's prompt cache, a summary
    the turn waits for runs in slot 1)."""

    def __init__(self, args: argparse.Namespace, ctx: int) -> None:
        self.args, self.ctx = args, ctx
        self.stub: Any = None
        self.server: Any = None

    async def __aenter__(self) -> tuple[Runtime, str]:
        if self.args.provider == "stub":
            from tests.stubs.llm_stub import LLMStub

            self.stub = LLMStub().start()
            return Runtime(self.stub.base_url), "stub"
        import secrets

        from client.engine.local import LocalServer, prepare
        from client.engine.local.spec import QWEN_CODER_15B

        os.environ.setdefault("MCP_CHAT_TEMPERATURE", "0")
        from client.ui.env_settings import dirs

        base = prepare(dirs().cache)
        self.server = LocalServer(base.binary, base.model, base.template, alias=QWEN_CODER_15B.name, ctx=self.ctx, cache=base.cache,
                                  name="llama-server-locomo", api_key=secrets.token_urlsafe(24)).start()
        await self.server.wait_ready(timeout=600)
        return (Runtime(self.server.base_url, chat_slot=0, api_key=self.server.api_key, uds=self.server.uds),
                QWEN_CODER_15B.name)

    async def __aexit__(self, *exc: object) -> None:
        if self.stub is not None:
            self.stub.stop()
        if self.server is not None:
            self.server.stop()


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def table(results: list[dict]) -> str:
    rows = ["| conversation | sessions | questions (early) | policy | F1 | F1 early | F1 late | request tokens (mean) "
            "| vs full | minutes | empty/fallback summaries |", "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for res in results:
        pol = res["policies"]
        full = pol.get("full", {}).get("request_tokens_mean")
        for name, p in pol.items():
            early = sum(a["early"] for a in p["answers"])
            vs = f"{100 * p['request_tokens_mean'] / full:.0f}%" if full else "-"
            rows.append(f"| {res['conversation']} | {res['sessions']} | {res['questions']} ({early}) | {name} | {_f(p['f1'])} "
                        f"| {_f(p['f1_early'])} | {_f(p['f1_late'])} | {p['request_tokens_mean']:.0f} | {vs} "
                        f"| {p['minutes']:.1f} | {p['empty_summaries']} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="a LoCoMo-format JSON file")
    ap.add_argument("--conversation", required=True, metavar="SAMPLE_ID")
    ap.add_argument("--sessions", type=int, metavar="K", help="only the first K sessions (default: all)")
    ap.add_argument("--questions", type=int, default=30, metavar="Q", help="questions asked (category 1-4, evidence in the sessions used)")
    ap.add_argument("--policies", default="full,trim,summarize")
    ap.add_argument("--json", metavar="OUT", help="write the results as JSON")
    ap.add_argument("--provider", default="local", choices=("local", "stub"))
    ap.add_argument("--answer-tokens", type=int, default=32, help="output limit of one answer")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every answer")
    args = ap.parse_args()
    started = time.perf_counter()
    res = asyncio.run(main_async(args))
    res["minutes"] = round((time.perf_counter() - started) / 60, 2)
    if args.json:
        Path(args.json).write_text(json.dumps(res, ensure_ascii=False, indent=1), encoding="utf-8")
    print()
    print(table([res]))
    print(f"\n({res['minutes']:.1f} min, load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
