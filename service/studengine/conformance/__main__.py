"""``python -m studengine.conformance``: the same as ``stud-conformance``."""

import sys

from studengine.conformance.runner import main

sys.exit(main())
