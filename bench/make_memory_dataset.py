"""Generate tests/data/memory_sessions.json: synthetic multi-session chats,
and tests/data/memory_bullets.json: labelled bullets for the usefulness scorer.

Several users; each session mixes personal facts (later asked about) with
chit-chat. Deterministic (seeded).  python bench/make_memory_dataset.py
The bullets (bench/memory_bullets.py) leave out every line of the sessions, and every line of
the held-out sessions of tests/data/memory_precision.json, so neither bench plays a line the
scorer was trained on.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory_bullets import make_bullets  # noqa: E402

FACTS = [
    ("나는 채식주의자야, 고기는 안 먹어", "채식"), ("내 고양이 이름은 나비야", "나비"),
    ("저는 다음 달에 부산으로 이사해요", "부산"), ("나는 땅콩 알레르기가 있어", "땅콩"),
    ("내 생일은 3월 14일이야", "3월 14일"), ("저는 파이썬 백엔드 개발자예요", "파이썬"),
    ("나는 매주 토요일에 테니스를 쳐", "테니스"), ("내 딸은 초등학교 2학년이야", "2학년"),
    ("저는 커피 대신 녹차를 좋아해요", "녹차"), ("나는 10월에 제주 마라톤에 나가", "마라톤"),
    ("내 차는 전기차라서 충전소가 필요해", "전기차"), ("저는 매운 음식을 싫어해요", "매운"),
]
CHITCHAT = [
    "오늘 날씨 어때?", "점심 뭐 먹을까?", "재미있는 농담 하나 해 줘", "주말에 비 온대?",
    "요즘 인기 있는 노래 알려 줘", "오늘 날씨 좋아서 기분이 좋다", "심심한데 뭐 하지?",
    "고마워", "방금 말한 거 다시 설명해 줘", "세계에서 제일 높은 산은?",
]


def in_heldout_sessions(text: str, data: Path) -> bool:
    """Is the line part of a held-out session of the memory precision bench (bench/memory_precision.py)?
    Those never train the scorer."""
    doc = json.loads((data / "memory_precision.json").read_text(encoding="utf-8"))
    norm = lambda s: "".join(s.split()).lower()  # noqa: E731
    held = norm(" ".join(json.dumps(x, ensure_ascii=False) for x in doc["sessions"] if x["split"] == "heldout"))
    return norm(json.dumps(text, ensure_ascii=False)[1:-1]) in held


def main() -> None:
    rng = random.Random(4)
    users = []
    for u in range(6):
        facts = rng.sample(FACTS, 4)
        sessions = []
        for s in range(5):
            lines = rng.sample(CHITCHAT, 4)
            if s < 3:  # facts are stated in the first sessions...
                for fact, _ in facts[s:s + 2]:
                    lines.insert(rng.randrange(len(lines) + 1), fact)
            sessions.append(lines)
        # ...and asked about in the last one
        users.append({"user": f"user{u}", "sessions": sessions,
                      "asked": [{"fact": f, "keyword": k} for f, k in facts]})
    data = Path(__file__).resolve().parent.parent / "tests" / "data"
    out = data / "memory_sessions.json"
    out.write_text(json.dumps(users, ensure_ascii=False, indent=1), encoding="utf-8")
    print(out)
    played = {line for u in users for lines in u["sessions"] for line in lines}
    bullets = [b for b in make_bullets(exclude=played) if not in_heldout_sessions(b["text"], data)]
    out = data / "memory_bullets.json"
    out.write_text("[\n" + ",\n".join(json.dumps(b, ensure_ascii=False) for b in bullets) + "\n]\n", encoding="utf-8")
    print(out, len(bullets))


if __name__ == "__main__":
    main()
