"""Strings of who owns what (issue 50): another user's thread, a fork of it, an id holding a secret,
the per-thread lock file of a SQLite database, and a file a folder's .env names that no trust makes safe.

Kept apart from client/ui/i18n.py so parallel work on the main tables merges cleanly; merged into them there.
"""

KO: dict[str, str] = {
    "thread_not_yours": "세션 {id}은(는) 다른 사용자({owner})의 것이라 이어 쓰지 않습니다 (그 사용자의 -c 와 장기 기억에 들어가게 됨). "
                        "사본을 만들어 이어 가려면: mcp-chat -r {id} --fork",
    "forked_other_owner": "원래 세션은 다른 사용자({owner})의 것입니다: 새 세션은 {user}의 것이며, 여기서 하는 말은 {owner}의 -c·첫 화면·장기 기억에 가지 않습니다.",
    "thread_id_secret": "세션 ID 에 알려진 비밀값(API 키, 비밀번호 등)이 들어 있어 쓰지 않았습니다 (ID 는 모든 행에 저장되고 출력됨). 다른 ID 를 주세요.",
    "lock_file_other_user": "잠금 파일 {path}이(가) 다른 사용자({owner})의 것이라 세션을 열지 않았습니다. "
                            "그 사용자의 mcp-chat 이 끝나면 지워집니다; 계속 남아 있으면 그 사용자(또는 관리자)에게 지워 달라고 하거나, --db 로 내 데이터베이스를 쓰세요.",
    "lock_file_symlink": "잠금 파일 {path}이(가) 심볼릭 링크라 세션을 열지 않았습니다 (따라가면 링크가 가리키는 파일이 생김). 링크를 지우고 다시 실행하세요.",
    "lock_file_not_file": "잠금 파일 자리 {path}에 일반 파일이 아닌 것(폴더, FIFO 등)이 있어 세션을 열지 않았습니다. 그것을 치우고 다시 실행하세요.",
    "lock_file_writable": "잠금 파일 {path}을(를) 다른 사용자도 쓸 수 있어 세션을 열지 않았습니다. 지우고 다시 실행하세요 (새 파일은 0600 으로 만듦).",
    "lock_file_unusable": "잠금 파일 {path}을(를) 열 수 없어 세션을 열지 않았습니다: {err}",
    "trust_unusable": "폴더 {folder}의 .env 가 가리키는 {path}이(가) {why}: 이 폴더의 .env 와 데이터베이스를 쓰지 않았습니다 (신뢰해도 안전해지지 않음).",
    "trust_why_not_file": "일반 파일이 아닙니다 (FIFO, 장치 등: 읽는 쪽이 멈출 수 있음)",
    "trust_why_owner": "폴더 밖에 있는 다른 사용자의 파일입니다 (신뢰한 뒤에도 그 사용자가 바꿀 수 있음)",
    "trust_why_writable": "폴더 밖에 있고 다른 사용자도 쓸 수 있는 파일입니다 (신뢰한 뒤에도 바뀔 수 있음)",
}

EN: dict[str, str] = {
    "thread_not_yours": "Session {id} belongs to another user ({owner}); not writing to it (it would reach their -c and memory). "
                        "To go on in a copy of your own: mcp-chat -r {id} --fork",
    "forked_other_owner": "The original session is another user's ({owner}): the new one is {user}'s, and nothing said in it reaches {owner}'s -c, first screen or memory.",
    "thread_id_secret": "The session id holds a known secret (an API key, a password ...): not used (an id is stored in every row and printed). Give another id.",
    "lock_file_other_user": "The lock file {path} belongs to another user ({owner}): no session opened. "
                            "It goes when their mcp-chat ends; if it stays, ask them (or an administrator) to remove it, or use a database of your own with --db.",
    "lock_file_symlink": "The lock file {path} is a symbolic link: no session opened (following it would create the file it points to). Remove the link and run again.",
    "lock_file_not_file": "Something other than a regular file (a folder, a FIFO ...) is at the lock file's place {path}: no session opened. Remove it and run again.",
    "lock_file_writable": "Other users may write the lock file {path}: no session opened. Remove it and run again (a new one is made 0600).",
    "lock_file_unusable": "Could not open the lock file {path}: no session opened: {err}",
    "trust_unusable": "{path}, named by the .env of {folder}, {why}: not using this folder's .env and database (trusting it would not make it safe).",
    "trust_why_not_file": "is no regular file (a FIFO, a device ...: whoever reads it may hang)",
    "trust_why_owner": "is another user's file outside the folder (they can change it after you trust the folder)",
    "trust_why_writable": "is outside the folder and others may write it (it can change after you trust the folder)",
}
