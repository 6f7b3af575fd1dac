"""Cases lesson 5's checks make up as they run, so a learner's code can only pass by doing the job in general."""


from __future__ import annotations

import random


def letters(rng: random.Random, n: int = 2) -> str:
    return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(n))


def raw_answer(rng: random.Random, count: int) -> dict:
    """A search answer as the API sends it: more fields than a model needs, in no fixed order."""
    results = []
    for rank in range(1, count + 1):
        words = " ".join(rng.choice(["kettle", "refund", "recall", "limescale", "warranty", "steel"])
                         for _ in range(rng.randint(5, 60)))
        fields = {"rank": rank, "score": round(rng.random(), 3), "title": f"Result {rank}: {words[:30]}",
                  "url": f"https://site{rng.randint(1, 99)}.example.org/{rank}", "snippet": words,
                  "favicon": "https://example.org/favicon.ico", "tracking_id": f"t-{rng.getrandbits(32):x}"}
        results.append(dict(rng.sample(sorted(fields.items()), len(fields))))
    return {"results": results, "credits_remaining": rng.randint(1, 999), "took_ms": rng.randint(5, 90)}
