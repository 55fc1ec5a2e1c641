"""How long a wait for a sign may last before the test calls it a hang.

Every wait in the suite ends on a sign (a line on the screen, a request at the stub, a file, a
port). The bound below is only how long a test waits for a sign that never comes: it decides how
soon a broken test fails, never whether a working one passes, so it is set for the slowest day
this machine has had (a cold client start beside two CPU burners and five other test runs took
a minute), not for a quiet one.
"""

HANG = 300.0
