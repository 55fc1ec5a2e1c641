"""Does memory keep what users say about themselves, and nothing else? (issue 49)

    python bench/memory_precision.py                 # the held-out split (the goal), before and after
    python bench/memory_precision.py --split all     # every session (train sessions were seen by the scorer)

Plays tests/data/memory_precision.json (Korean and English sessions: statements about the user
among pasted code, commands, logs, diffs, listings, URLs, fillers, a piped `-p` body, news and
quoted answers) through the candidate rules and the usefulness scorer, per language and per
source:
- user: the user's own statements (client/core/memory/statements.py), as `--memory-source user`;
- model: an extractor's answer (labelled lines in the data) through parsing and grounding
  (client/core/memory/parse.py, candidates.py), as `--memory-source llm`.
A candidate is kept when its score reaches the threshold (0.5); top-k is a per-pass budget, not
a rule, and is left out. `before` = main's rules before issue 49 (bench/memory_before.py, with its
scorer artefact); `after` = this tree's. Precision: kept items that are statements about the user;
recall: statements about the user with a kept item (model: items restating one that are kept); junk: kept items by
the label of what they came from. No model, no network; milliseconds.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402

import memory_before as before  # noqa: E402
from client.core.memory.candidates import Conversation, grounded_items, statements  # noqa: E402
from client.core.memory.parse import OWN, parse_bullets  # noqa: E402
from client.core.memory.statements import scoring_text  # noqa: E402
from client.engine.memory.extract import PROMPT_LINES  # noqa: E402
from client.engine.memory.scorer import ARTEFACT, load  # noqa: E402

DATA = ROOT / "tests" / "data" / "memory_precision.json"
ABOUT = ("fact", "pref", "plan", "correction", "relation")
JUNK = ("command", "code", "sql", "traceback", "log", "diff", "listing", "url", "filler", "piped")
OTHER = ("request", "question", "chitchat", "news", "quote", "transient")
THRESHOLD = 0.5


def piped(own: str, body: str) -> str:
    """What the model gets for `... | mcp-chat -p OWN` (client/ui/cli.py read_prompt)."""
    from client.ui.piped import message

    return message(own, body)


def rows_of(session: dict) -> list[tuple[int, object]]:
    """The session as transcript rows: each turn's parts joined by newlines, a `-p` turn with its
    piped body after the user's own line, a short answer after each turn."""
    rows: list[tuple[int, object]] = []
    pipe = session.get("pipe") or {}
    for t, parts in enumerate(session["turns"], 1):
        text = "\n".join(p for _, p in parts)
        if pipe.get("turn") == t:
            rows.append((t, HumanMessage(piped(text, pipe["body"]), additional_kwargs={OWN: text})))
        else:
            rows.append((t, HumanMessage(text)))
        rows.append((t, AIMessage("네, 알겠습니다." if session["lang"] == "ko" else "Sure.")))
    return rows


def _norm(s: str) -> str:
    return re.sub(r"\W+", "", s).lower()


def parts(session: dict) -> list[tuple[str, str, str]]:
    """(part id, label, text) of every part the user wrote, in order."""
    return [(f"{t}.{i}", label, text) for t, ps in enumerate(session["turns"], 1) for i, (label, text) in enumerate(ps)]


def part_of(text: str, session: dict) -> tuple[str, str]:
    """(part id, label) of the part a user-statement candidate came from (`piped`: the stdin body)."""
    t = _norm(text)
    for n, ps in enumerate(session["turns"], 1):
        for i, (label, part) in enumerate(ps):
            if t and t in _norm(part):
                return f"{n}.{i}", label
    return "pipe", "piped"


@dataclass
class Tally:
    kept: int = 0
    about_kept: int = 0  # kept items that are statements about the user
    found: int = 0  # statements about the user with a kept item
    about_total: int = 0  # statements about the user
    junk: Counter = field(default_factory=Counter)
    other: Counter = field(default_factory=Counter)
    examples: list = field(default_factory=list)  # (what, text): junk kept, statements missed

    def add(self, items: list[tuple[str, str, str, float]], truth: list[tuple[str, str, str]]) -> None:
        """items: (part id, label, text, score) of every candidate; truth: (part id, label) of
        everything the user (or the extractor) said."""
        kept = [(pid, label, text) for pid, label, text, score in items if score >= THRESHOLD]
        for pid, label, text in kept:
            self.kept += 1
            if label in ABOUT:
                self.about_kept += 1
            elif label in JUNK:
                self.junk[label] += 1
                self.examples.append((f"kept {label}", text))
            else:
                self.other[label] += 1
                self.examples.append((f"kept {label}", text))
        hit = {pid for pid, _, _ in kept}
        for pid, label, said in truth:
            if label in ABOUT:
                self.about_total += 1
                self.found += pid in hit
                if pid not in hit:
                    self.examples.append(("missed", next((t for p, _, t, _ in items if p == pid), f"(no candidate) {said}")))

    @property
    def precision(self) -> float:
        return self.about_kept / self.kept if self.kept else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.about_total if self.about_total else 1.0


def user_source(session: dict, rules: str, scorer) -> tuple[list, list]:
    """(part id, label, text, score) of every user-statement candidate of the session, and the truth."""
    rows = rows_of(session)
    if rules == "before":
        texts = [s for t, text in before.user_turns(rows).items() for s in before.statements_of(text)]
    else:
        texts = [scoring_text(b.text) for b in statements(rows)]
    return [(*part_of(x, session), x, scorer.score(x)) for x in texts], parts(session)


def model_source(session: dict, rules: str, scorer) -> tuple[list, list]:
    """(item id, label, text, score) of every extracted item (dropped ones scored 0), and the truth."""
    rows = rows_of(session)
    conv = Conversation.of(rows)
    out = []
    for i, (label, line) in enumerate(session["extraction"]):
        items = parse_bullets("- " + line)
        if rules == "before":
            kept = before.grounded_items(items, before.user_turns(rows), conv.assistant, PROMPT_LINES)
        else:
            kept = grounded_items(items, conv, PROMPT_LINES)
        text = kept[0].text if kept else line
        out.append((str(i), label, text, scorer.score(text) if kept else 0.0))
    return out, [(str(i), label, line) for i, (label, line) in enumerate(session["extraction"])]


def run(split: str) -> dict:
    sessions = [s for s in json.loads(DATA.read_text(encoding="utf-8"))["sessions"] if split == "all" or s["split"] == split]
    scorers = {"before": load(before.SCORER), "after": load(ARTEFACT)}
    table: dict = {}
    for s in sessions:
        for source, fn in (("user", user_source), ("model", model_source)):
            for rules, scorer in scorers.items():
                table.setdefault((s["lang"], source, rules), Tally()).add(*fn(s, rules, scorer))
    return table


def detectors() -> None:
    """The structural detector beside Pygments' guess_lexer (already installed: rich needs it), line
    by line over every session: junk lines caught, prose lines (statements and the rest) taken."""
    import time

    from pygments.lexers import guess_lexer
    from pygments.util import ClassNotFound

    from client.core.memory.structure import line_kind

    def pygments_kind(line: str) -> str | None:
        try:
            name = guess_lexer(line).name
        except ClassNotFound:
            return None
        return None if name in ("Text only", "Text") else name

    lines = [(label, ln.strip()) for s in json.loads(DATA.read_text(encoding="utf-8"))["sessions"]
             for parts in s["turns"] for label, part in parts for ln in part.splitlines() if ln.strip()]
    junk = [ln for label, ln in lines if label in JUNK]
    prose = [ln for label, ln in lines if label not in JUNK]
    print("| detector | junk lines caught | prose lines taken as junk | ms per line |\n|---|---:|---:|---:|")
    for name, fn in (("structure.py (regular expressions)", line_kind), ("pygments guess_lexer", pygments_kind)):
        t0 = time.perf_counter()
        caught = sum(fn(ln) is not None for ln in junk)
        wrong = sum(fn(ln) is not None for ln in prose)
        ms = (time.perf_counter() - t0) * 1000 / len(lines)
        print(f"| {name} | {caught}/{len(junk)} | {wrong}/{len(prose)} | {ms:.3f} |")


def kinds(c: Counter) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))) or "0"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--split", choices=("heldout", "train", "all"), default="heldout")
    p.add_argument("--show", action="store_true", help="list the junk kept and the statements missed (after)")
    p.add_argument("--detectors", action="store_true", help="the structural detector beside pygments' guess_lexer")
    args = p.parse_args()
    if args.detectors:
        detectors()
        return
    table = run(args.split)
    print(f"split: {args.split}, threshold {THRESHOLD}\n")
    print("| language | source | rules | kept | precision | recall (about the user) | junk kept, by kind | other kept |")
    print("|---|---|---|---:|---:|---:|---|---|")
    for (lang, source, rules), t in table.items():
        print(f"| {lang} | {source} | {rules} | {t.kept} | {t.precision:.0%} | {t.recall:.0%} ({t.about_kept}/{t.about_total}) "
              f"| {sum(t.junk.values())}: {kinds(t.junk)} | {kinds(t.other)} |")
    if args.show:
        for (lang, source, rules), t in table.items():
            for what, text in t.examples if rules == "after" else ():
                print(f"{lang} {source}: {what}: {text}")


if __name__ == "__main__":
    main()
