"""Settings for every pytest run, notebooks included (kernels inherit this environment)."""

import os

os.environ["COURSE_BACKEND"] = "scripted"  # tests never call a real model
os.environ.setdefault("COURSE_APPROVER", "scripted")  # no human to click Approve in CI
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # model weights come from a package, never a hub
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
