# EXERCISE l3-best-per-doc
def best_sections(index, query, k=3):
    """The best section of each document: at most k hits, from k different documents."""
    best = {}
    for hit in index.search(query, 4 * k):  # more than k: the best hits may share a document
        best.setdefault(hit.doc, hit)  # hits come best first, so the first one of a document wins
    return list(best.values())[:k]
