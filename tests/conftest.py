"""Test-suite defaults: offline, no personal .env, a fixed seed."""

from __future__ import annotations

import os

# A developer's own .env (with a real key) must not change what the tests see.
os.environ["COURSE_ENV_FILE"] = "none"
os.environ["COURSE_BACKEND"] = "offline"
os.environ.setdefault("COURSE_SEED", "0")
for _var in ("OPENAI_API_KEY", "OPENROUTER_API_KEY", "OPENAI_BASE_URL", "BATCH_MODE"):
    os.environ.pop(_var, None)


import pytest  # noqa: E402

from sandbox_trap import SECRET_TEXT  # noqa: E402


@pytest.fixture(scope="module")
def sandbox():
    """One warm sandbox per test module (a module may define its own)."""
    from course_utils.sandbox import Sandbox

    with Sandbox() as box:
        yield box


@pytest.fixture(scope="module")
def trap(tmp_path_factory):
    """A folder holding a secret file that no payload may read (see ``sandbox_trap``)."""
    folder = tmp_path_factory.mktemp("trap")
    (folder / "secret.txt").write_text(SECRET_TEXT)
    return folder
