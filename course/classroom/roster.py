"""A late learner, added while the class runs: `make class-add NAME=zoe` (nothing restarts).

    python -m course.classroom.roster --tokens tokens.txt --add zoe     # prints zoe's line to hand her

The tokens file gets a line for the new learner (rewritten 0600 from its first byte, then
renamed into place). The class server reads the file again when it changes (`TokensFile`), and
so does the hub (`jupyterhub_config.py`): zoe may log in at once, and her server gets her token
at its start. Nobody else's kernel or server is stopped.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from course.classroom.learners import TokensFileError, add_learner


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.classroom.roster", description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=Path, required=True, help="the class's tokens file")
    parser.add_argument("--add", required=True, metavar="NAME", action="append",
                        help="a learner's name (their hub log-in); repeat for several")
    args = parser.parse_args(argv)
    try:
        lines = [add_learner(args.tokens, name) for name in args.add]
    except TokensFileError as e:
        parser.exit(2, f"{e}\n")
    print(f"added to {args.tokens} (the class server and the hub take them at once; hand each their own line):")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
