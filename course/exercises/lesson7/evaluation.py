"""The check of `l7-success-rate`: an evaluation's "task success", the citation `document › section`."""

from __future__ import annotations

import random

from course.evaluation.agent import Question
from course.exercises import NotYet, exercise
from course.exercises.lesson7.cases import sentence
from course.exercises.lesson7.given import GIVEN
from course.exercises.seeds import draws


def question(rng: random.Random, doc: str, section: str, also: tuple[str, ...] = ()) -> Question:
    return Question(sentence(rng), doc, section, also)  # as load_questions makes them: the lesson's `heldout`


@exercise("l7-success-rate", lesson=7, given=GIVEN)
def check_success_rate(success_rate):
    rng = draws()
    docs = rng.sample(["refunds", "returns", "shipping", "warranty", "payments"], 5)
    qs = [question(rng, docs[0], "Time limits"), question(rng, docs[1], "Delivery costs", ("Carriers",)),
          question(rng, docs[2], "Overview"), question(rng, docs[3], "Making a claim"),
          question(rng, docs[4], "Exceptions")]
    answers = [f"Yes. (Source: {docs[0]} › Time limits)",      # right
               f"It depends. (Source: {docs[1]} › Carriers)",  # right: an `also` section
               f"No idea. (Source: {docs[3]} › Overview)",     # right section name, wrong document
               None,                                           # the run ended without an answer
               # the right document and the right section's name, but not cited together: wrong
               f"See {docs[4]}. (Source: {docs[0]} › Exceptions)"]
    order = rng.sample(range(len(qs)), len(qs))  # where each case stands is drawn too
    qs, answers = [qs[i] for i in order], [answers[i] for i in order]
    try:
        got = success_rate(answers, qs)
    except (TypeError, KeyError) as e:
        raise NotYet(f"your code raised {type(e).__name__} ({e}) on the questions.",
                     "they are Question objects, as in the lesson's `heldout` (not dicts): read q.doc, q.section "
                     "and q.also (a tuple, often empty).") from None
    rate = None if not isinstance(got, (int, float)) or isinstance(got, bool) else got
    if rate is not None and abs(rate - 0.8) < 1e-9:
        raise NotYet("two answers cite the right section's name in the wrong document.",
                     "compare 'document › section' together, not the section alone.")
    if rate is not None and abs(rate - 0.6) < 1e-9:
        raise NotYet("an answer that names the question's document and, in another citation, its section counted "
                     "as right.",
                     "look for the citation 'document › section' as one text, the question's doc with one of its "
                     "sections.")
    if rate is not None and abs(rate - 0.2) < 1e-9:
        raise NotYet("an answer that cites one of the question's 'also' sections did not count.",
                     "it is right too: accept q.section or any section in q.also, each cited as 'document › section'.")
    if rate is None or abs(rate - 0.4) > 1e-9:
        raise NotYet(f"2 of these 5 answers cite a right section, so the rate is 0.4; you returned {got!r}.",
                     "count the answers that hold the citation 'q.doc › s' for s in (q.section, *q.also); None is "
                     "no answer; divide by the number of questions.")
    try:
        empty = success_rate([], [])
    except ZeroDivisionError:
        empty = None
    if empty != 0:
        raise NotYet("with no questions there is nothing to succeed at.",
                     "return 0 (dividing by len(questions) fails when there are none).")
    return "the same rule as the evaluation table's 'task success'."
