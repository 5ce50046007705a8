"""The frozen app's entry point: the same ``contextdesk`` program as the console script."""

import sys

from desktop.launcher import main

sys.exit(main())
