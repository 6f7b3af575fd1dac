"""The check of `l9-progress-line`: the line a host shows for each progress notification."""

from __future__ import annotations

from course.exercises import NotYet, exercise
from course.exercises.lesson9.cases import word
from course.exercises.lesson9.given import GIVEN
from course.exercises.seeds import draws


@exercise("l9-progress-line", lesson=9, given=GIVEN)
def check_progress_line(progress_text):
    from course.beyond.progress import progress_text as reference

    rng = draws()
    total = rng.randrange(3, 40)
    done = rng.randrange(1, total)
    step = word(rng)
    cases = [((done, total, f"{step} {done + 1}"), "an update with a total and a message"),
             ((float(done), float(total), None), "values as floats (as they arrive over JSON-RPC), no message"),
             ((done, None, step), "no total (the server does not know how much is left)"),
             ((0, None, None), "no total and no message"),
             ((total + 2, total, None), "progress past the total (a server that miscounted)"),
             ((rng.randrange(1, 9) + 0.5, float(total), None), "a fractional progress")]
    for args, case in cases:
        try:
            got = progress_text(*args)
        except (ZeroDivisionError, TypeError) as e:
            if args[1]:
                raise
            raise NotYet(f"for {case}, progress_text{args} raised {type(e).__name__}.",
                         "With no total, say how much is done (e.g. '4 done') and show no percentage.") from None
        want = reference(*args)
        if got != want:
            raise NotYet(f"for {case}, progress_text{args} returned {got!r}; expected {want!r}.",
                         "Write numbers with :g (3.0 shows as 3), the percentage with :.0% and at most 100%, and "
                         "the message after a space when there is one.")
    return "Each update is one honest line, with or without a total."
