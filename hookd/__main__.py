"""``python -m hookd``."""

import sys

from hookd.cli.entry import main

sys.exit(main())
