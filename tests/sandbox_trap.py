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


def assert_contained(result, trap) -> None:
    """A hostile run passed nothing, said why, wrote nothing, and leaked no secret.

    The expected values shown after « attendu » in a failure are the test's own literals, so
    only what comes before is searched for the secret.
    """
    assert result.passed == 0 and not result.ok, result
    assert result.error or result.failures  # a reason is always given
    assert not (trap / "pwned").exists()
    said = [result.output, result.error or ""] + [f.reason.split("attendu")[0]
                                                  for f in result.failures]
    assert not any(SECRET_TEXT in text for text in said)
