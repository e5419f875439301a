import sys

from lmms_plugins.cli import main

sys.exit(main())
