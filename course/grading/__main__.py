"""`python -m course.grading --help`."""

import sys

from course.grading.cli import main

sys.exit(main())
