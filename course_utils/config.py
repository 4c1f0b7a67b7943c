"""Configuration of the course, under the names notebooks and DESIGN §4 use.

``Settings``, ``load_settings()`` and the rest of the settings live in
:mod:`course_utils.settings` (which imports nothing of ``llm``); ``setup()`` and the ``Course``
it returns live in :mod:`course_utils.session`. This module only gathers them, so that
``from course_utils.config import Settings, load_settings, setup`` keeps working while the
package has no import cycle (``llm`` and ``session`` depend on ``settings``, never on this module).
"""

from __future__ import annotations

from .session import Course, setup  # noqa: F401  (re-exported)
from .settings import *  # noqa: F401,F403  (the settings' public names)
from .settings import ConfigError, Settings, load_settings  # noqa: F401  (named for readers)
