# EXERCISE l3-min-score
def search_min_score(index, query, k=3, min_score=0.3):
    """The best k hits whose score reaches min_score (maybe none)."""
    return [hit for hit in index.search(query, k) if hit.score >= min_score]
