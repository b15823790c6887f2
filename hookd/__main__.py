"""``python -m hookd``."""

import sys

from hookd.cli import main

sys.exit(main())
