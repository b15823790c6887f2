"""``python -m hookd``."""

import sys

from hookd.cli.main import main

sys.exit(main())
