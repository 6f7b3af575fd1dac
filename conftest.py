"""Settings for every pytest run, notebooks included (kernels inherit this environment), and what keeps
`make test`'s parallel run (pytest-xdist, two workers more than cores) from sharing what must not be shared."""

import os
import tempfile

import pytest

# Learner state goes to a temporary folder, never into the developer's own ~/.local/state. Set
# before `course` is imported (course.paths reads it once); notebook kernels inherit it. The last
# part is the name of the real default, so what lesson 4 prints matches its stored output.
# Under xdist every worker inherits the controller's environment: a worker makes its own folder,
# so two workers never write one store or one cache. A COURSE_WORK the developer set is kept.
_MADE = "COURSE_TESTS_MADE_WORK"
if not os.environ.get("COURSE_WORK") or (os.environ.get(_MADE) and os.environ.get("PYTEST_XDIST_WORKER")
                                         and os.environ.get(_MADE) != os.environ.get("PYTEST_XDIST_WORKER")):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    os.environ["COURSE_WORK"] = os.path.join(tempfile.mkdtemp(prefix=f"course-tests-{worker}-"), "llm-mcp-course")
    os.environ[_MADE] = worker

# A hub's class embedding cache (course/classroom/class_cache.py) is not for tests: each builds its own.
os.environ.pop("COURSE_SHARED_EMBEDDINGS", None)

from course import offline  # noqa: E402 -- after COURSE_WORK: importing course may read course.paths

offline.scripted()  # the scripted model and approver, local model files, no real model's key

# Tests that must not run at the same time as each other go to one xdist worker, in collection order:
# {group: (why, test files whose every item belongs to it)}. A notebook's cells are a group of their own (nbval:
# they share one kernel, in order).
GROUPS = {
    "hub": ("system users and the hub's processes", ("tests/test_hub.py", "tests/test_hub_rehearsal.py")),
    "browser": ("one JupyterLab and chromium for the file (its module fixture)", ("tests/test_browser.py",)),
}
# The longest groups and items start first, so that no worker begins a long one when the others are done: in the
# order of their time in `make test` (a JUnit file of main, quiet machine: the browser 62 s and the hub 40 s as one
# unit each, grading_class's two biggest 23 + 21 s, lesson 3's notebook, ...). Update it from what `make bench`
# lists as the slowest items.
FIRST = ("browser", "hub", "tests/test_grading_class.py", "notebooks/03_document_search.ipynb",
         "tests/test_exercises_lessons.py", "notebooks/06_mcp_client.ipynb",
         "notebooks/05_mcp_server.ipynb",
         "tests/test_search_batching.py", "notebooks/")


def group_of(nodeid: str) -> str | None:
    path = nodeid.split("::", 1)[0]
    for name, (_, files) in GROUPS.items():
        if path in files:
            return name
    return path if path.endswith(".ipynb") else None


def rank(item: pytest.Item) -> int:
    key = group_of(item.nodeid) or item.nodeid
    return next((i for i, start in enumerate(FIRST) if key.startswith(start)), len(FIRST))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=rank)  # stable: within a group, and among the rest, collection order holds


@pytest.hookimpl(optionalhook=True)  # only called when pytest-xdist runs the suite (`make test`: -n JOBS)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    # xdist's own `--dist loadgroup` cannot group here: it renames items through `item._nodeid`, which pytest 9
    # no longer reads, so every cell of a notebook went to any worker (NameError). The same scheduling, with
    # the groups above: each group one unit of work, every other item a unit of its own.
    # xdist also reorders the units by how many items each holds (`--loadscope-reorder`, on by default), which
    # put every notebook's 30-60 cells before the hub's three 60-130 s tests and the browser's 80 s one, so a
    # worker started those last, alone: the units go in collection order instead, the order FIRST gives.
    from xdist.scheduler import LoadScopeScheduling

    class Groups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid) or nodeid

    config.option.loadscopereorder = False
    return Groups(config, log)
