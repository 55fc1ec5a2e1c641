"""The usefulness scorer's labelled data, as scripts/train_scorer.py reads it (no numpy: the tests read it too).

- tests/data/memory_bullets.json (bench/make_memory_dataset.py): templated bullets, with their own
  held-out split by template;
- the train sessions of tests/data/memory_precision.json: every line the user wrote or an
  extractor answered, 1 for a statement about the user, 0 for the rest (pasted code, logs,
  commands, news, quoted answers: the hard negatives). Its held-out sessions never train the
  scorer: bench/memory_precision.py measures on them.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BULLETS = ROOT / "tests" / "data" / "memory_bullets.json"
PRECISION = ROOT / "tests" / "data" / "memory_precision.json"
ABOUT = ("fact", "pref", "plan", "correction", "relation")


def load_rows() -> list[dict]:
    return json.loads(BULLETS.read_text(encoding="utf-8")) + session_rows()


def session_rows() -> list[dict]:
    out: list[dict] = []
    for s in json.loads(PRECISION.read_text(encoding="utf-8"))["sessions"]:
        if s["split"] != "train":
            continue
        lines = [(label, ln) for parts in s["turns"] for label, part in parts for ln in part.splitlines()]
        lines += [("piped", ln) for ln in (s.get("pipe") or {}).get("body", "").splitlines()]
        lines += [(label, re.sub(r"^\[[^\]]*\]\s*", "", item)) for label, item in s["extraction"]]
        for label, ln in lines:
            if ln.strip():
                out.append({"text": ln.strip(), "label": int(label in ABOUT), "lang": s["lang"], "kind": label,
                            "group": f"s:{s['id']}", "split": "train"})
    return out


def rows_sha256(rows: list[dict]) -> str:
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()
