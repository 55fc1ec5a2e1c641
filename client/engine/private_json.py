"""Small per-user JSON files that decide what is allowed (saved approvals, trusted folders).

Read: never through a symlink, and a file others could have written (group/world-writable,
another owner) counts as absent. Write: directory 0700, file 0600, replaced atomically.
The implementation is shared with the search server: plumbing/trust_record.py.
"""

from plumbing.trust_record import read_private_json, write_private_json

__all__ = ["read_private_json", "write_private_json"]
