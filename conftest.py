"""Settings for every pytest run, notebooks included (kernels inherit this environment)."""

import os

os.environ["COURSE_BACKEND"] = "scripted"  # tests never call a real model
os.environ.setdefault("COURSE_APPROVER", "scripted")  # no human to click Approve in CI
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # model weights come from a package, never a hub
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# Learner state goes to a temporary folder, never into the developer's own ~/.local/state. Set
# before `course` is imported (course.paths reads it once); notebook kernels inherit it. The last
# part is the name of the real default, so what lesson 4 prints matches its stored output.
if not os.environ.get("COURSE_WORK"):
    import tempfile

    os.environ["COURSE_WORK"] = os.path.join(tempfile.mkdtemp(prefix="course-tests-"), "llm-mcp-course")
