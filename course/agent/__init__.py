"""The agent loop with limits (lesson 2): `run_agent`, `arun_agent`, `Limits`, `Result`."""

from course.agent.loop import *  # noqa: F403
