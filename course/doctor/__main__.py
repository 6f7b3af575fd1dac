import sys

from course.doctor.cli import main

sys.exit(main())
