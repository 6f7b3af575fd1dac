"""What lesson 3's notebook has imported before each exercise cell: a check runs it before the learner's cell."""


# tests/test_exercises_lessons.py compares each one with the notebook's cells before the exercise.
GIVEN_SECTIONS = """
from course.backend import connect
from course.exercises import check, hint
from course.stories.lesson3 import document_search
from course.paths import DATA
from course import show
from course.search import Section, load_sections
"""
GIVEN_RANK = GIVEN_SECTIONS + """
from pathlib import Path
from course.search import DocIndex
import numpy as np
"""
GIVEN_SEARCH_DOCS = GIVEN_RANK + """
from course.search import cosine, heatmap, normalize
from IPython.display import HTML, display
from course.search import words
"""
GIVEN_HIT_AT_K = GIVEN_SEARCH_DOCS + """
import time
from course.search import EmbeddingCache
import shutil
import tempfile
import json
from course.paths import ROOT
"""
GIVEN_BEST_PER_DOC = GIVEN_HIT_AT_K + """
from course.search import evaluate
from course.doctools import DocTools
from course.tools import ToolFailure
from course.agent import Limits, run_agent
"""
