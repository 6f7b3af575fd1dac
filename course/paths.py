"""Where the course keeps things. Everything a learner's run creates goes under `work/`."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"  # the shop's policy documents (lesson 3)
WORK = ROOT / "work"  # state the lessons create: the shop's store, caches (git-ignored)
