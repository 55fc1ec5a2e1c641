"""Strings of fork and rewind (`mcp-chat fork`, /fork, /rewind, -r ID --fork) and of a thread's origin.

Kept apart from client/ui/i18n.py so parallel work on the main tables merges cleanly; merged into them there.
"""

KO: dict[str, str] = {
    "forked_cli": "세션 {src}의 처음 {n}턴으로 새 세션을 만들었습니다: {id} (이어 가기: mcp-chat -r {id})",
    "forked": "세션 {src}의 처음 {n}턴으로 새 세션 {id}을(를) 만들어 그쪽에서 이어 갑니다. 원래 세션은 그대로입니다.",
    "fork_empty": "포크할 턴이 없습니다: 이 세션에는 아직 끝난 턴이 없습니다.",
    "fork_bad_turn": "세션 {id}의 턴은 {turns}개입니다: 1부터 {turns} 사이의 턴 번호를 주세요 (받은 값: {n}).",
    "fork_usage": "사용법: /fork [N] (N: 처음 몇 턴까지, 1 이상; 없으면 전부)",
    "thread_exists": "이미 있는 세션 ID입니다: {id}",
    "fork_needs_thread": "--fork 는 사본을 만들 세션을 고르는 -r ID, -c 또는 --thread ID 와 함께 씁니다.",
    "rewind_nothing": "되감을 턴이 없습니다.",
    "rewind_bad_turns": "이 세션의 턴은 {turns}개입니다: 1부터 {turns} 사이의 수를 주세요 (받은 값: {n}).",
    "rewind_usage": "사용법: /rewind [N] (N: 되감을 턴 수, 1 이상; 없으면 1)",
    "rewound": "마지막 {n}턴을 되감았습니다: 다음 요청에는 처음 {kept}턴까지만 들어갑니다.",
    "rewound_kept": "되감은 턴은 세션 {backup}에 보관했습니다 (/threads 에 '되감기 보관'으로 나옴, 되돌리려면 /resume {backup}).",
    "rewind_tools": "주의: 되감은 턴에서 실행한 도구({names})의 효과는 되돌려지지 않습니다 (보낸 요청, 바꾼 파일 등은 그대로입니다).",
    "thread_lost": "세션 {id}을(를) 이 클라이언트가 더는 잡고 있지 않습니다(데이터베이스 연결이 끊긴 동안 다른 클라이언트가 열었습니다). 메시지를 보내지 않았습니다. /new 나 /resume 으로 다른 세션을 여세요.",
    "col_origin": "출처",
    "origin_fork": "{id}의 {n}턴에서 포크",
    "origin_rewind": "되감기 보관 ({id}, {n}턴 뒤)",
    "origin_orphan_rewind": "되감기 보관",
}

EN: dict[str, str] = {
    "forked_cli": "Made a new session from the first {n:# turn|# turns} of {src}: {id} (go on in it: mcp-chat -r {id})",
    "forked": "Made session {id} from the first {n:# turn|# turns} of {src}; continuing there. The session itself is unchanged.",
    "fork_empty": "Nothing to fork: this session has no finished turn yet.",
    "fork_bad_turn": "Session {id} has {turns:# turn|# turns}: give a turn number from 1 to {turns} (got {n}).",
    "fork_usage": "usage: /fork [N] (N: up to which turn, 1 or more; default: all)",
    "thread_exists": "A session with this ID exists already: {id}",
    "fork_needs_thread": "--fork copies the session chosen by -r ID, -c or --thread ID: give one of them.",
    "rewind_nothing": "No turn to rewind.",
    "rewind_bad_turns": "This session has {turns:# turn|# turns}: give a number from 1 to {turns} (got {n}).",
    "rewind_usage": "usage: /rewind [N] (N: turns to take back, 1 or more; default 1)",
    "rewound": "Rewound the last {n:turn|# turns}: the next request holds the first {kept:# turn|# turns} only.",
    "rewound_kept": "The rewound turns are kept in session {backup} (listed as 'rewound' in /threads; to go back: /resume {backup}).",
    "rewind_tools": "Note: what the tools run in the rewound turns did ({names}) is not undone (requests sent, files changed stay).",
    "thread_lost": "This client no longer holds session {id} (another client opened it while the database connection was lost). Nothing was sent. Open another with /new or /resume.",
    "col_origin": "origin",
    "origin_fork": "fork of {id} at turn {n}",
    "origin_rewind": "rewound ({id}, after turn {n})",
    "origin_orphan_rewind": "rewound turns",
}
