"""``python -m analytic`` runs the ``analytic`` command."""

import sys

from analytic.cli import main

sys.exit(main())
