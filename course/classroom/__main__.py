"""`python -m course.classroom`: the class server (course/classroom/server.py)."""

from course.classroom.server import main

main()
