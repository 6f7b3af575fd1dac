"""`python -m course.grading --help`."""

from course.grading.cli import main

raise SystemExit(main())
