"""`python -m course.grading [options] NOTEBOOK_OR_FOLDER...`: grade a class, write what a mentor reads."""

from __future__ import annotations

import argparse
from pathlib import Path

from course.grading import report
from course.grading.runner import grade_class, learners
from course.grading.sandbox import ROOT, Sandbox, SandboxError, SandboxLimits

DESCRIPTION = """Grade learners' notebooks in a bubblewrap sandbox (README, "Grading a class"). A pass counts only
inside the lesson's vocabulary; anything else is "review", with the reason. Writes index.html (the class),
a page per learner, class.csv (merged with earlier runs) and the similar pairs. A folder holding notebooks named as
the course names them (02_agent_loop.ipynb, ...) is one learner: lesson 8's l8-assemble then grades the whole
assistant, with the earlier lessons' pieces from that folder."""
EPILOG = """exit status: 0 every learner passed every exercise; 1 some did not (the reports say which);
2 a bad command line, nothing to grade, or no sandbox.
examples:
  python -m course.grading "submissions/lesson 4/" -j 2 --roster names.txt
  python -m course.grading submissions/          # submissions/<learner>/0N_*.ipynb, a folder per learner
  python -m course.grading --out work/grades --learner "Anna B" --exercise l4-guard --by Mia \\
      --override pass --why "the loop is fine, the check misread it"
  python -m course.grading --vocabulary 4"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m course.grading", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", type=Path, metavar="NOTEBOOK_OR_FOLDER")
    p.add_argument("-j", "--jobs", type=int, default=2, metavar="N", help="learners graded in parallel (default 2)")
    p.add_argument("--out", type=Path, default=ROOT / "work" / "grades", metavar="DIR",
                   help="where the reports go (default work/grades/)")
    p.add_argument("--timeout", type=float, default=SandboxLimits.wall_seconds, metavar="SECONDS",
                   help=f"wall-clock limit per exercise (default {SandboxLimits.wall_seconds:g})")
    p.add_argument("--sandbox", choices=["auto", "bwrap", "process"], default="auto",
                   help="auto/bwrap (default): bubblewrap, or stop with how to install it; process: NOT a sandbox, "
                        "for trusted work only (every report says so)")
    p.add_argument("--lesson", type=int, help="the class's lesson (default: the one most notebooks are)")
    p.add_argument("--roster", type=Path, help="a file with one learner name a line: absent ones are 'missing'")
    p.add_argument("--solutions", action="store_true", help="grade the reference solutions (solutions/)")
    p.add_argument("--vocabulary", type=int, metavar="LESSON", help="print what a lesson's passes may use")
    fb = p.add_argument_group("mentor feedback (written to DIR/feedback.json, shown on the learner's page)")
    fb.add_argument("--learner")
    fb.add_argument("--exercise")
    fb.add_argument("--by", help="who writes it")
    fb.add_argument("--comment")
    fb.add_argument("--override", choices=["pass", "not yet", "review"], help="change the verdict (needs --why)")
    fb.add_argument("--why")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.vocabulary is not None:
        from course.grading.vocabulary import vocabulary

        print(vocabulary(args.vocabulary).describe())
        return 0
    if args.learner or args.exercise:
        if not (args.learner and args.exercise and args.by and (args.comment or args.override)) or \
                (args.override and not args.why):
            print("feedback needs --learner, --exercise, --by and --comment or --override with --why.")
            return 2
        report.add_feedback(args.out, args.learner, args.exercise, args.by, args.comment or "",
                            args.override or "", args.why or "")
        print(f"Feedback for {args.learner}, {args.exercise} written to {args.out / 'feedback.json'}.")
        return 0
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
        print(f"nothing to grade in {', '.join(map(str, args.paths))}: no visible file.")
        return 2
    try:
        sandbox = Sandbox(args.sandbox, SandboxLimits(wall_seconds=args.timeout))
    except SandboxError as e:
        print(e)
        return 2
    print(f"Sandbox: {sandbox.label}; {args.jobs} learners in parallel, {args.timeout:g} s per exercise.", flush=True)
    roster = [n.strip() for n in args.roster.read_text(encoding="utf-8").splitlines() if n.strip()] \
        if args.roster else []
    with sandbox:
        class_ = grade_class(args.paths, sandbox, args.jobs, skip=args.out, lesson=args.lesson,
                             solutions=args.solutions, done=lambda learner: print(report.summary_line(learner),
                                                                                  flush=True))
    report.write(class_, args.out, sandbox.label, roster)
    perfect = sum(not learner.problem and learner.passed == learner.total for learner in class_)
    results = [r for learner in class_ if not learner.problem for r in learner.results if r.scored]
    print(f"{perfect} of {len(class_)} learners passed everything; {sum(r.passed for r in results)} of {len(results)} "
          f"exercises passed; {sum(r.status == 'review' for r in results)} to review.")
    print(f"Reports: {args.out}/index.html (and class.csv, a page per learner)")
    return 0 if perfect == len(class_) else 1

