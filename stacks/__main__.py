"""``python -m stacks``: the ``stacks`` command."""

import sys

from stacks.cli import main

sys.exit(main())
