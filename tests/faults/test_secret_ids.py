"""A session id or a fork name that holds a known secret is refused with one line (issue 50).

An id is written into every row of the thread (threads, messages, usage, checkpoints, writes) and
printed (`fork` on stdout, "현재 세션 ID" on stderr, `threads`): masked it would name another
thread, so it is not used at all. The attacker here is the user's own paste: the model key as
`--thread`, as `mcp-chat fork --name`, or a long run of it inside an id. Both backends: nothing of
it reaches the database.
"""

from __future__ import annotations

import pytest

from tests.backends import contains
from tests.conftest import TEST_KEY

pytestmark = pytest.mark.storage  # what reaches the database: both backends


def refused(r) -> None:
    assert r.code == 1, r.err
    line = r.error_line()
    assert "비밀값" in line and TEST_KEY not in r.out + r.err, line


@pytest.mark.parametrize("tid", [TEST_KEY, f"notes-{TEST_KEY[3:]}-2"], ids=["whole", "inside"])
def test_a_thread_id_holding_the_key_is_refused(cli, llm, tid):
    refused(cli("--thread", tid, "--no-memory", input="안녕\n"))
    refused(cli("-p", "안녕", "--thread", tid, "--no-memory"))
    assert llm.requests == [] and not contains(cli.db, TEST_KEY[3:])
    assert cli("--thread", "notes-2", "--no-memory", input="안녕\n").code == 0  # an ordinary id works


def test_a_fork_name_holding_the_key_is_refused(cli, llm):
    assert cli("--thread", "base", "--no-memory", input="첫 질문\n").code == 0
    refused(cli.sub("fork", "base", "--name", TEST_KEY))
    assert not contains(cli.db, TEST_KEY[3:])
    r = cli.sub("threads")
    assert r.code == 0 and r.out.startswith("base\t"), r.out
