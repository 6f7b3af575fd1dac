"""`python -m course.grading [options] NOTEBOOK_OR_FOLDER...`: grade a class, write the feedback."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from course.grading import report
from course.grading.runner import grade_class, learners
from course.grading.sandbox import ROOT, Limits, Sandbox, SandboxError

DESCRIPTION = """Grade learners' notebooks: each learner's exercises run in a sandbox (a child process group
with an allowlisted environment, a private temporary folder and OS limits; with bubblewrap also a read-only
filesystem and no network). Writes a feedback file per learner (HTML and JSON) and class.csv."""
EPILOG = """exit status: 0 every learner passed every exercise; 1 some exercises did not pass or some
files could not be read (the reports say which); 2 a bad command line, nothing to grade, or a
sandbox that cannot run.
examples:
  python -m course.grading "submissions/lesson 1/" -j 4
  python -m course.grading "Anna lesson 4.ipynb" --out feedback/"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m course.grading", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", type=Path, metavar="NOTEBOOK_OR_FOLDER",
                   help="learners' notebooks, or folders of them (every visible file in a folder is graded)")
    p.add_argument("-j", "--jobs", type=int, default=2, metavar="N",
                   help="learners graded in parallel (default 2)")
    p.add_argument("--out", type=Path, default=ROOT / "work" / "grades", metavar="DIR",
                   help="where the reports go (default work/grades/)")
    p.add_argument("--timeout", type=float, default=Limits.wall_seconds, metavar="SECONDS",
                   help=f"wall-clock limit per exercise (default {Limits.wall_seconds:g})")
    p.add_argument("--sandbox", choices=["auto", "bwrap", "process"], default="auto",
                   help="bwrap: bubblewrap (read-only filesystem, no network); process: a process group with "
                        "limits only; auto (default): bwrap when it works here, else process")
    p.add_argument("--solutions", action="store_true", help="grade the reference solutions (solutions/)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not args.paths and not args.solutions:
        parser().print_help()
        return 2
    if args.jobs < 1 or args.timeout <= 0:
        print("-j needs at least 1 and --timeout a positive number of seconds.")
        return 2
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        print(f"no such file or folder: {', '.join(missing)} (a path with spaces needs quotes).")
        return 2
    if not args.solutions and not learners(args.paths, skip=args.out):
        print(f"nothing to grade in {', '.join(str(p) for p in args.paths)}: no visible file (hidden files and the "
              "report folder are skipped).")
        return 2
    try:
        sandbox = Sandbox(args.sandbox, Limits(wall_seconds=args.timeout), reap_orphans=True)
    except SandboxError as e:
        print(e)
        return 2
    what = {"bwrap": "bubblewrap: read-only filesystem, no network, own process namespace",
            "process": "process group with limits; the learner's code can still read and delete the files your "
                       "account can (README, 'Grading a class')"}[sandbox.mode]
    print(f"Sandbox: {sandbox.mode} ({what}); {args.jobs} learners in parallel, {args.timeout:g} s per exercise.",
          flush=True)
    with sandbox:
        class_ = grade_class(args.paths, sandbox, args.jobs, skip=args.out, solutions=args.solutions,
                             done=lambda learner: print(report.summary_line(learner), flush=True))
    earlier = report.stale(args.out, class_)
    report.write(class_, args.out)
    graded = [learner for learner in class_ if not learner.problem]
    perfect = sum(learner.passed == learner.total for learner in graded)
    exercises = sum(learner.total for learner in graded)
    passed = sum(learner.passed for learner in graded)
    unread = len(class_) - len(graded)
    print(f"{perfect} of {len(class_)} learners passed everything; {passed} of {exercises} exercises passed"
          + (f"; {unread} file(s) could not be read" if unread else "") + ".")
    out = args.out.resolve()
    shown = out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out
    print(f"Reports: {shown}{os.sep} (class.csv, and an .html and a .json per learner)")
    if earlier:
        names = ", ".join(earlier[:3]) + (f" and {len(earlier) - 3} more" if len(earlier) > 3 else "")
        print(f"Also there, from an earlier run and not in this class: {len(earlier)} learner report(s) ({names}); "
              "give each class its own --out.")
    return 0 if perfect == len(class_) else 1


if __name__ == "__main__":
    sys.exit(main())
