"""The old name of the grader: `python -m course.exercises ...` is `python -m course.grading ...`."""

import sys

from course.grading.cli import main

sys.exit(main())
