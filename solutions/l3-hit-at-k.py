# EXERCISE l3-hit-at-k
def hit_at_k(search, questions, k=3):
    """The fraction of questions with an answering section among the first k hits of search(question, k)."""
    answered = 0
    for q in questions:
        good = {(q["doc"], q["section"])} | {(q["doc"], s) for s in q.get("also", [])}
        if any((hit.doc, hit.heading) in good for hit in search(q["question"], k)[:k]):
            answered += 1
    return answered / len(questions)
