"""Do facts survive the context policies on a real model? Seed 000's memory test, made real.

For each language (Korean, English) and policy (none, trim, summarize) one conversation of 20
turns: facts of several kinds (a name, a number, a place, a preference and a dislike, a
relative's name and plan, a day that is later corrected) among filler requests with ordinary
answers, enough for four summary rolls (defaults N=5, M=2), then three questions about the
facts (the name, the number, the corrected day). Prints facts recalled, the tokens of the final
request, and, for summarize, with a person's pause between messages, how long the turn at which
a summary is due (and the turn that applies it) takes against the median of the other turns.

    python bench/retention_bench.py                    # local model (llama-server), ~30-40 min
    python bench/retention_bench.py --provider stub    # the recording stub: a dry run of the harness
    python bench/retention_bench.py --readme           # also write the table into docs/benchmarks.md
    python bench/retention_bench.py --langs ko --policies none,summarize --pause 0 --answer-tokens 120 --rotated

The local model must be prepared first (`python scripts/setup_local_model.py`). No MCP tools
are offered: the test is about context, not search. `SHORT` is the 14-turn version the
real-model suite runs (tests/localmodel/test_retention.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from client.engine.build import build_session  # noqa: E402
from client.core.config import Settings  # noqa: E402
from client.ui.options import add_chat_options, resolve  # noqa: E402
from client.core.context.policy import ContextSettings  # noqa: E402
from client.engine.events import Notice, TurnDone  # noqa: E402
from client.engine.providers import Runtime  # noqa: E402
from client.engine.store import open_store  # noqa: E402
from client.core.context.budget import estimate_text_tokens  # noqa: E402

# Long conversations (the bench): facts of several kinds among filler requests whose answers are
# ordinary chat answers; enough turns for four summary rolls before the questions (N=5, M=2).
CONVERSATIONS: dict[str, dict] = {
    "ko": {
        "turns": [
            "기억해 줘: 내 고양이 이름은 모찌야.",
            "파이썬에서 리스트를 정렬하는 방법을 알려줘.",
            "내 사물함 번호는 4817이야.",
            "아침에 집중이 잘 되는 습관을 몇 가지 알려줘.",
            "나는 부산 해운대에 살아.",
            "비 오는 날 실내에서 할 만한 운동을 추천해 줘.",
            "나는 매운 음식을 좋아하고 오이는 싫어해.",
            "치과 예약은 화요일이야.",
            "하늘이 파란 이유를 설명해 줘.",
            "여동생 이름은 서연이고 다음 달에 결혼해.",
            "집에서 커피를 맛있게 내리는 방법을 알려줘.",
            "사실 치과 예약은 목요일로 바뀌었어.",
            "간단한 저녁 메뉴 하나 추천해 줘.",
            "이메일 제목을 잘 쓰는 요령을 알려줘.",
            "산책하기 좋은 시간은 언제일까?",
            "잠이 잘 오게 하는 방법을 알려줘.",
            "주말에 읽을 만한 책 장르를 추천해 줘.",
        ],
        "probes": [
            ("내 고양이 이름이 뭐였지? 이름만 답해 줘.", ["모찌"]),
            ("내 사물함 번호가 뭐였지? 숫자만 답해 줘.", ["4817"]),
            ("치과 예약이 무슨 요일이지? 요일만 답해 줘.", ["목요일"]),
        ],
    },
    "en": {
        "turns": [
            "Please remember: my cat's name is Mochi.",
            "How do I sort a list in Python?",
            "My locker number is 4817.",
            "What are a few morning habits that help me focus?",
            "I live in Lisbon, near the river.",
            "Suggest some indoor exercise for a rainy day.",
            "I love spicy food, but I can't stand cucumbers.",
            "My dentist appointment is on Tuesday.",
            "Why is the sky blue?",
            "My sister Clara is getting married next month.",
            "How do I make good coffee at home?",
            "Actually, the dentist appointment moved to Thursday.",
            "Suggest one quick dinner idea.",
            "Any tips for writing a clear email subject line?",
            "When is a good time of day for a walk?",
            "How can I fall asleep more easily?",
            "Recommend a book genre for a quiet weekend.",
        ],
        "probes": [
            ("What is my cat's name? Answer with the name only.", ["mochi"]),
            ("What is my locker number? Answer with the number only.", ["4817"]),
            ("Which day is my dentist appointment? Answer with the day only.", ["thursday"]),
        ],
    },
}
# The short version (14 turns, two rolls) for the real-model suite, where time is scarce.
SHORT: dict[str, dict] = {
    "ko": {
        "turns": [
            "기억해 줘: 내 고양이 이름은 모찌야.",
            "파이썬에서 리스트를 정렬하는 방법을 한 문장으로 알려줘.",
            "내 사물함 번호는 4817이야.",
            "좋은 아침 인사말 하나만 알려줘.",
            "나는 부산 해운대에 살아.",
            "나는 매운 음식을 좋아해.",
            "치과 예약은 화요일이야.",
            "하늘이 파란 이유를 한 문장으로 말해 줘.",
            "사실 치과 예약은 목요일로 바뀌었어.",
            "간단한 저녁 메뉴 하나 추천해 줘.",
            "산책하기 좋은 시간을 한 문장으로 말해 줘.",
        ],
        "probes": CONVERSATIONS["ko"]["probes"],
    },
    "en": {
        "turns": [
            "Please remember: my cat's name is Mochi.",
            "In one sentence, how do I sort a list in Python?",
            "My locker number is 4817.",
            "Give me one short good-morning greeting.",
            "I live in Lisbon, near the river.",
            "I love spicy food.",
            "My dentist appointment is on Tuesday.",
            "In one sentence, why is the sky blue?",
            "Actually, the dentist appointment moved to Thursday.",
            "Suggest one quick dinner idea.",
            "In one sentence, when is a good time for a walk?",
        ],
        "probes": CONVERSATIONS["en"]["probes"],
    },
}
# Other facts, other words (issue 39: rotated facts; a moved appointment said with 미뤘어, a 4th probe):
# `--rotated` runs these for Korean.
ROTATED: dict[str, dict] = {
    "ko": {
        "turns": [
            "기억해 줘: 우리 집 햄스터 이름은 감자야.", "파이썬에서 딕셔너리를 정렬하는 방법을 알려줘.",
            "내 자전거 자물쇠 비밀번호는 5290이야.", "아침에 일찍 일어나는 요령을 몇 가지 알려줘.", "나는 대전 유성구에 살아.",
            "집에서 할 수 있는 간단한 스트레칭을 추천해 줘.", "나는 단 음식을 좋아하고 가지는 싫어해.", "미용실 예약은 수요일이야.",
            "무지개가 생기는 이유를 설명해 줘.", "남동생 이름은 도윤이고 다음 주에 군대에 가.", "녹차를 맛있게 우리는 방법을 알려줘.",
            "아 참, 미용실 예약을 금요일로 미뤘어.", "간단한 아침 메뉴 하나 추천해 줘.", "회의록을 잘 쓰는 요령을 알려줘.",
            "비 오는 날 기분 전환하는 방법은?", "집중이 잘 되는 음악 장르를 추천해 줘.", "주말에 볼 만한 영화 장르를 추천해 줘.",
        ],
        "probes": [
            ("우리 집 햄스터 이름이 뭐였지? 이름만 답해 줘.", ["감자"]),
            ("내 자전거 자물쇠 비밀번호가 뭐였지? 숫자만 답해 줘.", ["5290"]),
            ("미용실 예약이 무슨 요일이지? 요일만 답해 줘.", ["금요일"]),
            ("내 남동생 이름이 뭐였지? 이름만 답해 줘.", ["도윤"]),
        ],
    },
}
POLICIES = {  # strategy, max_turns, summary_after (the documented defaults)
    "none": ("none", None, 5),
    "trim": ("trim", 5, 5),
    "summarize": ("summarize", 2, 5),
}
BRIEF = " 답은 한두 문장으로 짧게 하세요. Answer briefly, in the user's language."


@dataclass
class Run:
    lang: str
    policy: str
    recalled: int = 0
    probes: int = 0
    final_tokens: int = 0
    final_estimated: int = 0
    times: list[float] = field(default_factory=list)
    firsts: list[float] = field(default_factory=list)  # seconds until the answer's first text (the user's wait)
    due: list[int] = field(default_factory=list)  # indexes of turns at which a summary was due
    taken: list[int] = field(default_factory=list)  # indexes of turns that applied a summary
    waited: int = 0  # turns that waited for a summary
    warmed: int = 0  # prompt-cache warming requests (client/engine/warm.py)
    answers: list[str] = field(default_factory=list)
    summary: str = ""

    def ordinary_median(self, baseline: Run | None = None) -> float | None:
        """The median ordinary turn: all turns of the `none` run of the same conversation when
        there is one (no summary work at all), else this run's turns without summary work.
        The latter is a biased sample: summaries fall due at fixed places in the conversation,
        here on the long filler answers, which leaves mostly the short ones."""
        if baseline is not None and baseline.times:
            return statistics.median(baseline.times)
        ordinary = [t for i, t in enumerate(self.times) if i not in self.due and i not in self.taken]
        return statistics.median(ordinary) if ordinary else None

    def ratio(self, which: list[int], baseline: Run | None = None) -> float | None:
        """The slowest of these turns against the median ordinary turn."""
        med = self.ordinary_median(baseline)
        picked = [self.times[i] for i in which if i < len(self.times)]
        if not med or not picked:
            return None
        return max(picked) / med

    def same_turn(self, which: list[int], baseline: Run | None) -> float | None:
        """The worst of these turns against the same turn (same message, same answer limit)
        in the `none` run: what the summary work itself cost the turn."""
        if baseline is None:
            return None
        pairs = [(self.times[i], baseline.times[i]) for i in which if i < min(len(self.times), len(baseline.times))]
        return max(a / b for a, b in pairs) if pairs else None

    def due_ratio(self, baseline: Run | None = None) -> float | None:
        return self.ratio(self.due, baseline)


def settings_for(provider: str, base_url: str | None, answer_tokens: int = 160) -> Settings:
    p = argparse.ArgumentParser()
    add_chat_options(p)
    argv = ["--provider", "openai" if provider == "stub" else provider, "--no-memory"]
    if provider == "stub":
        argv += ["--base-url", base_url or "", "--model", "stub"]
        os.environ.setdefault("OPENAI_MODEL", "stub")
    s = resolve(p.parse_args(argv))
    return dataclasses.replace(
        s, max_output_tokens=min(s.max_output_tokens, answer_tokens),  # short answers: the facts, not prose, are tested
        timeout=max(s.timeout, 600.0),  # a loaded shared machine: prompt processing alone can pass 120 s
        system_prompt=s.system_prompt + BRIEF)


def recalled(answer: str, accepted: list[str]) -> bool:
    a = answer.lower()
    return any(x in a for x in accepted)


async def run_one(base: Settings, lang: str, policy: str, pause: float, db: str,
                  conversations: dict[str, dict] | None = None, runtime: Runtime | None = None) -> Run:
    strategy, max_turns, after = POLICIES[policy]
    s = dataclasses.replace(base, context=ContextSettings(strategy, max_turns, after), db=db,  # type: ignore[arg-type]
                            interactive=pause > 0)  # a person at a terminal: summaries in the background
    store = await open_store(db)
    run = Run(lang, policy)
    try:
        session = build_session(s, store, [], runtime=runtime)  # as the client builds it (no tools here)
        await session.open(f"{lang}-{policy}")
        conv = (conversations or CONVERSATIONS)[lang]
        messages = [*conv["turns"], *(q for q, _ in conv["probes"])]
        n_planted = len(conv["turns"])
        seen = None
        for i, text in enumerate(messages):
            # due: the first turn after a summary was started (the turn that used to wait for it)
            pending = session.summaries.pending
            due_now = pending is not None and pending is not seen
            seen = pending
            started = time.perf_counter()
            answer, done, first = "", None, None
            async for ev in session.turn(text):
                if isinstance(ev, TurnDone):
                    done = ev
                elif isinstance(ev, Notice) and ev.key == "summary_wait":
                    run.waited += 1
                elif hasattr(ev, "delta"):
                    answer += ev.delta
                    if first is None and ev.delta.strip():
                        first = time.perf_counter() - started
            run.times.append(time.perf_counter() - started)
            run.firsts.append(first if first is not None else run.times[-1])
            if due_now:
                run.due.append(i)
            if done is not None and done.summarized:
                run.taken.append(i)
            if i >= n_planted:
                ok = recalled(answer, conv["probes"][i - n_planted][1])
                run.recalled += ok
                run.probes += 1
                run.answers.append(("✓ " if ok else "✗ ") + re.sub(r"\s+", " ", answer.strip())[:80])
            if done is not None and i == len(messages) - 1:
                run.final_tokens = done.stats.reported or done.stats.estimated
                run.final_estimated = done.stats.estimated
            if pause > 0 and policy == "summarize" and i < len(messages) - 1:
                await asyncio.sleep(pause)  # the person reads the answer and types the next message
        run.warmed = session.warmer.sent if session.warmer else 0
        run.summary = await session.current_summary() or ""
        session.summaries.cancel()
    finally:
        await store.close()
    return run


def table(runs: list[Run]) -> str:
    none = {r.lang: r for r in runs if r.policy == "none"}
    rows = ["| 언어 | 정책 | 기억한 사실 | 마지막 요청 토큰 | none 대비 | 보통 턴 중앙값 | 요약 시점 턴 (최대) / 중앙값 "
            "| 같은 턴 none 대비 | 요약 적용 턴 (최대) / 중앙값 | 같은 턴 none 대비 | 요약을 기다린 턴 |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        base = none.get(r.lang)
        pct = f"{100 * r.final_tokens / base.final_tokens:.0f}%" if base and base.final_tokens else "-"
        summ = r.policy == "summarize"
        med = r.ordinary_median(base if summ else None)

        def fmt(x: float | None) -> str:
            return f"{x:.2f}x" if x is not None and summ else "-"

        rows.append(f"| {r.lang} | {r.policy} | {r.recalled}/{r.probes} | {r.final_tokens} | {pct} | "
                    f"{f'{med:.1f} s' if med else '-'} | {fmt(r.due_ratio(base))} | {fmt(r.same_turn(r.due, base))} | "
                    f"{fmt(r.ratio(r.taken, base))} | {fmt(r.same_turn(r.taken, base))} | {r.waited if summ else '-'} |")
    by_policy: dict[str, list[int]] = {}
    for r in runs:
        got = by_policy.setdefault(r.policy, [0, 0])
        got[0] += r.recalled
        got[1] += r.probes
    rows.append("")
    rows.append("합계: " + ", ".join(f"{p} {a}/{b}" for p, (a, b) in by_policy.items()))
    rows += ["", *first_text_table(runs, none)]
    return "\n".join(rows)


def first_text_table(runs: list[Run], none: dict[str, Run]) -> list[str]:
    """Seconds until the answer starts to show: what the user waits for, whatever the answer's
    length (the turn times above also count the answer being written)."""
    rows = ["답이 보이기 시작할 때까지 (첫 글자):", "",
            "| 언어 | none 중앙값 | summarize 중앙값 | 요약 시점 턴 (최대) / none 중앙값 | 요약 적용 턴 (최대) / none 중앙값 |",
            "|---|---:|---:|---:|---:|"]
    for r in runs:
        base = none.get(r.lang)
        if r.policy != "summarize" or base is None or not base.firsts or not r.firsts:
            continue
        med = statistics.median(base.firsts)

        def worst(which: list[int]) -> str:
            picked = [r.firsts[i] for i in which if i < len(r.firsts)]
            return f"{max(picked) / med:.2f}x" if picked and med else "-"

        rows.append(f"| {r.lang} | {med:.1f} s | {statistics.median(r.firsts):.1f} s | {worst(r.due)} | {worst(r.taken)} |")
    return rows


def write_readme(text: str, meta: str) -> None:
    path = ROOT / "docs" / "benchmarks.md"
    doc = path.read_text(encoding="utf-8")
    start, end = "<!-- retention-bench -->", "<!-- /retention-bench -->"
    block = f"{start}\n{meta}\n\n{text}\n{end}"
    if start in doc and end in doc:
        doc = doc[: doc.index(start)] + block + doc[doc.index(end) + len(end):]
    else:
        doc = doc.rstrip() + "\n\n" + block + "\n"
    path.write_text(doc, encoding="utf-8")


async def main_async(args: argparse.Namespace) -> list[Run]:
    from client.engine.providers import get_provider
    from client.ui.local_setup import StartFrontend

    os.environ.setdefault("MCP_CHAT_TEMPERATURE", "0")
    if args.pause > 0:  # a person at a terminal: the client starts its summary server (not in a pipe)
        os.environ.setdefault("MCP_CHAT_SUMMARY_SERVER", "1")
    stub = None
    if args.provider == "stub":
        from tests.stubs.llm_stub import LLMStub

        stub = LLMStub().start()
    try:
        os.environ.setdefault("LANGCHAIN_OPENAI_STREAM_CHUNK_TIMEOUT_S", "600")
        s = settings_for(args.provider, stub.base_url if stub else None, args.answer_tokens)
        runs: list[Run] = []
        async with get_provider(s.provider).runtime(s, StartFrontend()) as runtime:
            if s.provider == "local" and "summarize" in args.policies and args.pause > 0:
                await _summary_server_ready(runtime)
            with tempfile.TemporaryDirectory() as tmp:
                for lang in args.langs.split(","):
                    for policy in args.policies.split(","):
                        t0 = time.perf_counter()
                        r = await run_one(s, lang, policy, args.pause, str(Path(tmp) / f"{lang}-{policy}.db"),
                                          {**CONVERSATIONS, **ROTATED} if args.rotated else None, runtime=runtime)
                        runs.append(r)
                        print(f"[{lang}/{policy}] {r.recalled}/{r.probes} facts, final request {r.final_tokens} "
                              f"tokens, {time.perf_counter() - t0:.0f}s, turn times "
                              f"{[round(x, 1) for x in r.times]}, first text {[round(x, 1) for x in r.firsts]}, due {r.due}, taken {r.taken}, waited {r.waited}, warmed {r.warmed}, "
                              f"summary {estimate_text_tokens(r.summary)} tokens", flush=True)
                        for a in r.answers:
                            print("   ", a, flush=True)
                        if args.verbose and r.summary:
                            print("    summary:", r.summary.replace("\n", " | "), flush=True)
        return runs
    finally:
        if stub is not None:
            stub.stop()


async def _summary_server_ready(runtime: Runtime, timeout: float = 300.0) -> None:
    """Measure the client as a person meets it a minute after start: background summaries on
    the niced summary server (client/engine/local/server.py), not on the chat's while it loads."""
    deadline = time.monotonic() + timeout
    while not runtime.summary_base_url and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    print(f"[summary server] {runtime.summary_base_url or 'not ready: background summaries use the chat server'}",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--provider", default="local", choices=("local", "openai", "clova", "stub"))
    ap.add_argument("--langs", default="ko,en")
    ap.add_argument("--policies", default="none,trim,summarize")
    ap.add_argument("--pause", type=float, default=4.0, help="seconds between messages (a person reading and typing)")
    ap.add_argument("--answer-tokens", type=int, default=160, help="output limit of one answer")
    ap.add_argument("--readme", action="store_true", help="write the table into docs/benchmarks.md")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the final summaries")
    ap.add_argument("--rotated", action="store_true", help="Korean: the other facts (ROTATED)")
    args = ap.parse_args()
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    runs = asyncio.run(main_async(args))
    load_after = os.getloadavg()[0]
    text = table(runs)
    print()
    print(text)
    minutes = (time.perf_counter() - started) / 60
    print(f"\n({minutes:.1f} min, load average {load_before:.1f} before, {load_after:.1f} after)")
    if args.readme:
        flags = " ".join(a for a in sys.argv[1:] if a != "--readme")
        meta = (f"`python bench/retention_bench.py {flags}`".replace(" `", "`") + f" (provider {args.provider}, 온도 0, 메시지 사이 {args.pause:g}초 멈춤, "
                f"요약 N=5 M=2, trim M=5, 답 {args.answer_tokens} 토큰 한도, 도구 없음; 약 {minutes:.0f}분, "
                f"1분 부하 평균 {load_before:.1f} → {load_after:.1f}, 2코어)")
        write_readme(text, meta)


if __name__ == "__main__":
    main()
