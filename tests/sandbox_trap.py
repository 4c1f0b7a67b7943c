"""What the hostile-payload suites share: a secret file to steal and a sentinel path to write.

A payload names them ``SECRET`` and ``SENTINEL``; :func:`plant` replaces both by real paths in a
folder of the test run (the ``trap`` fixture of ``conftest.py``), so a leak or a write is seen.
"""

from __future__ import annotations

SECRET_TEXT = "SECRET-4242"


def plant(code, tests, trap):
    """``code`` and ``tests`` with ``SECRET`` / ``SENTINEL`` pointing into the ``trap`` folder."""

    def fill(text):
        return (text.replace("SECRET", str(trap / "secret.txt"))
                .replace("SENTINEL", str(trap / "pwned")))

    return fill(code), (fill(tests) if isinstance(tests, str) else tests)
