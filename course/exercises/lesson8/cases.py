"""What lesson 8's checks make up as they run: order numbers and names the learner has not seen."""

from __future__ import annotations

import random
import string


def order_id(rng: random.Random) -> str:
    return f"A{rng.randrange(2000, 9999)}"


def word(rng: random.Random, n: int = 6) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(n))
