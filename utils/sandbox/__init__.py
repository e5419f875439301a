"""The code sandbox (being split into one module per idea; this step only moves the file)."""

from .run import *  # noqa: F401,F403
from .run import _UID_BASE, _descendants, _others_can_enter, _procs_of_uid  # noqa: F401  (used by tests)
