"""The check of `l2-limit-reached`: when a run must stop (steps, token budget with room to finish, clock)."""


from __future__ import annotations

from course.exercises import NotYet, exercise
from course.exercises.lesson2.given import GIVEN_LIMIT
from course.exercises.seeds import draws

STOPS = ("max_steps", "max_tokens", "max_seconds")


@exercise("l2-limit-reached", lesson=2, given=GIVEN_LIMIT)
def check_limit_reached(limit_reached):
    from course.agent import Limits

    rng = draws()

    def ask(limits, *, tool_steps=0, tokens=0, elapsed=0.0, next_cost=100):
        try:
            got = limit_reached(limits, tool_steps=tool_steps, tokens=tokens, elapsed=elapsed,
                                      next_cost=next_cost)
        except TypeError as e:
            if limits.max_seconds is None and "NoneType" in str(e):
                raise NotYet("max_seconds may be None, which means no clock.",
                             "compare elapsed with it only when limits.max_seconds is not None.") from None
            raise
        if got is not None and got not in STOPS:  # so from here on, got is None or one of STOPS
            raise NotYet(f"limit_reached should return None (go on) or one of {', '.join(map(repr, STOPS))}; got "
                         f"{got!r}.",
                         "return the name of the limit as a string, spelled exactly as above, and None (not False or "
                         "'') when the run may go on.")
        return got

    for clock in rng.sample([None, None, rng.uniform(0.5, 30.0), rng.uniform(0.5, 30.0)], 4):
        steps, budget = rng.randint(1, 9), rng.randint(20, 90) * 100
        cost = rng.randint(1, budget // 4)
        limits = Limits(max_steps=steps, max_tokens=budget, max_seconds=clock)
        room = budget - 2 * cost  # the most tokens that still leave room for this step and a finish as big
        fine = dict(tool_steps=steps - 1, tokens=rng.randint(0, room), elapsed=(clock or 60.0) * 0.5, next_cost=cost)
        if ask(limits, **fine) is not None:
            raise NotYet("limit_reached stopped a run that is within every limit (fewer tool steps than "
                         "max_steps, a budget with room for this step and the finish, time left).",
                         "Return None then.")
        if ask(limits, **{**fine, "tool_steps": 0, "tokens": 0, "elapsed": 0.0}) is not None:
            raise NotYet("limit_reached stopped a run before its first step, with nothing used yet.",
                         "return None.")
        if ask(limits, **{**fine, "tool_steps": steps}) != "max_steps":
            raise NotYet("when tool_steps has reached max_steps (as many tool steps done as allowed), return "
                         "'max_steps'.",
                         "the run may not make another tool step.")
        if ask(limits, **{**fine, "tool_steps": steps + rng.randint(1, 3)}) != "max_steps":
            raise NotYet(f"with more tool steps done than max_steps (tool_steps={steps + 1} or more, "
                         f"max_steps={steps}), limit_reached did not return 'max_steps'.",
                         "compare with >=, not ==: a run that is past the limit must stop too.")
        if ask(limits, **{**fine, "tokens": room}) is not None:
            raise NotYet("when tokens + 2 × next_cost is exactly max_tokens, the step and a finish as big still "
                         "fit.",
                         "return None. Stop only when tokens + 2 × next_cost > max_tokens.")
        over = room + rng.randint(1, cost)  # this step fits, but then the finish would not
        if ask(limits, **{**fine, "tokens": over}) != "max_tokens":
            raise NotYet("when this step would fit in the budget but leave no room for a final request as big "
                         "(tokens + next_cost ≤ max_tokens < tokens + 2 × next_cost), return 'max_tokens'.",
                         "the budget must keep room for the controlled finish.")
        if ask(limits, **{**fine, "tokens": budget + rng.randint(0, 500)}) != "max_tokens":
            raise NotYet("when the tokens used already reach max_tokens, return 'max_tokens'.",
                         "there is no room left for any request then, whatever next_cost is: compare tokens + 2 × "
                         "next_cost with max_tokens and stop when it is over.")
        if clock is None:
            if ask(limits, **{**fine, "elapsed": rng.uniform(1e3, 1e6)}) is not None:
                raise NotYet("with max_seconds=None there is no clock.",
                             "elapsed time never stops the run.")
        else:
            if ask(limits, **{**fine, "elapsed": clock * rng.uniform(1.01, 3)}) != "max_seconds":
                raise NotYet("once elapsed has passed max_seconds, return 'max_seconds'.",
                             "when limits.max_seconds is not None, compare elapsed with it: once elapsed is past "
                             "max_seconds, the run stops.")
            if ask(limits, **{**fine, "elapsed": clock * 0.99}) is not None:
                raise NotYet("before max_seconds have passed, the clock does not stop the run.",
                             "with elapsed a little under max_seconds, return None: stop only once elapsed has "
                             "reached it.")
        both = ask(limits, **{**fine, "tool_steps": steps, "tokens": budget})
        if both not in ("max_steps", "max_tokens"):
            raise NotYet(f"when the steps and the budget are both used up, return one of them; got {both!r}.",
                         "test each limit in turn and return as soon as one of them is reached.")
    return "Every limit stops the run at the right moment, and not before."
