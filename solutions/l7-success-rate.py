# EXERCISE l7-success-rate
def success_rate(answers, questions):
    """The share of answers that cite a right section as 'document › section'."""
    if not questions:
        return 0
    right = 0
    for answer, q in zip(answers, questions, strict=True):
        sections = [q.section, *q.also]
        if any(f"{q.doc} › {s}" in (answer or "") for s in sections):
            right += 1
    return right / len(questions)
