"""Settings for every pytest run, notebooks included (kernels inherit this environment)."""

import os
import tempfile

# Learner state goes to a temporary folder, never into the developer's own ~/.local/state. Set
# before `course` is imported (course.paths reads it once); notebook kernels inherit it. The last
# part is the name of the real default, so what lesson 4 prints matches its stored output.
if not os.environ.get("COURSE_WORK"):
    os.environ["COURSE_WORK"] = os.path.join(tempfile.mkdtemp(prefix="course-tests-"), "llm-mcp-course")

# A hub's class embedding cache (course/classroom/class_cache.py) is not for tests: each builds its own.
os.environ.pop("COURSE_SHARED_EMBEDDINGS", None)

from course import offline  # noqa: E402 -- after COURSE_WORK: importing course may read course.paths

offline.scripted()  # the scripted model and approver, local model files, no real model's key
