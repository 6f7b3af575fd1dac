"""Pictures of similarity for the notebook, without a plotting library (lesson 3)."""

from __future__ import annotations

from html import escape

import numpy as np


def heatmap(rows: list[str], columns: list[str], scores: np.ndarray) -> str:
    """An HTML table of scores, darker for higher: a picture of similarities without a plotting library."""
    low, high = float(np.min(scores)), float(np.max(scores))
    head = "".join(f"<th style='font-size:85%'>{escape(c)}</th>" for c in columns)
    body = []
    for label, values in zip(rows, scores, strict=True):
        cells = []
        for v in values:
            t = (float(v) - low) / ((high - low) or 1)  # 0 (lightest) .. 1 (darkest)
            colour = f"rgb({int(255 - 200 * t)}, {int(255 - 120 * t)}, 255)"
            ink = "white" if t > 0.6 else "black"
            cells.append(f"<td style='background:{colour};color:{ink};text-align:center'>{v:.2f}</td>")
        body.append(f"<tr><th style='text-align:left'>{escape(label)}</th>{''.join(cells)}</tr>")
    return f"<table><tr><th></th>{head}</tr>{''.join(body)}</table>"
