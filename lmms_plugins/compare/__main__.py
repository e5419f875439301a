"""``python -m lmms_plugins.compare``."""

import sys

from lmms_plugins.compare import main

sys.exit(main())
