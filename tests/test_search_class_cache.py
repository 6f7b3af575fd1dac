"""The class's embedding cache: built once by the teacher, read (never written) by every learner's index."""

import os
import stat
import subprocess
import sys

import numpy as np
import pytest

from course.classroom.class_cache import build
from course.search import DocIndex, EmbeddingCache
from tests.test_search import CountingEmbedder


@pytest.fixture
def folder(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kettles.md").write_text("# Kettles\n## Descaling\nUse vinegar monthly.\n\n## Cables\nNever pull it.\n")
    (docs / "mugs.md").write_text("# Mugs\n## Washing\nDishwasher safe stoneware.\n\n## Chips\nSend a photo.\n")
    return docs


def snapshot(folder):
    """Every file under `folder` with its bytes and modification time: what a write would change."""
    return {p.relative_to(folder): (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()}


@pytest.fixture
def shared(tmp_path, folder):
    """The teacher's cache, built once, with the folder made read-only as a real hub would have it."""
    out = tmp_path / "class-embeddings"
    sections, _ = build(out, folder, embedder=CountingEmbedder())
    assert sections == 4
    out.chmod(0o555)
    yield out
    out.chmod(0o755)


def test_a_learner_with_the_class_cache_embeds_nothing_and_writes_nothing_there(tmp_path, folder, shared):
    before = snapshot(shared)
    learner = CountingEmbedder()
    index = DocIndex(folder, cache_dir=tmp_path / "anna", embedder=learner, shared_cache=shared)
    assert learner.texts == 0, "the learner ran the model although the class cache had every section"
    teacher = DocIndex(folder, cache_dir=shared, embedder=CountingEmbedder(), shared_cache=None)
    assert np.array_equal(index.vectors, teacher.vectors)
    assert snapshot(shared) == before, "a learner's index wrote into the class cache"
    again = CountingEmbedder()  # the vectors are now the learner's own too: no class cache needed any more
    DocIndex(folder, cache_dir=tmp_path / "anna", embedder=again, shared_cache=None)
    assert again.texts == 0


def test_a_stale_class_cache_is_not_used_for_what_changed_since_it_was_built(tmp_path, folder, shared):
    before = snapshot(shared)
    (folder / "mugs.md").write_text("# Mugs\n## Washing\nHand wash only, please.\n\n## Chips\nSend a photo.\n")
    learner = CountingEmbedder()
    index = DocIndex(folder, cache_dir=tmp_path / "anna", embedder=learner, shared_cache=shared)
    assert learner.texts == 1  # only the edited section; the three unchanged ones come from the class cache
    washing = next(i for i, s in enumerate(index.sections) if s.heading == "Washing")
    fresh = CountingEmbedder().encode([index.sections[washing].embedding_text()])[0]
    assert np.allclose(index.vectors[washing], fresh / np.linalg.norm(fresh))  # its new text, not the cached one
    assert snapshot(shared) == before


def test_a_class_cache_of_another_model_is_not_used_at_all(tmp_path, folder, shared):
    class OtherModel(CountingEmbedder):
        name = "another-model"

    learner = OtherModel()
    DocIndex(folder, cache_dir=tmp_path / "anna", embedder=learner, shared_cache=shared)
    assert learner.texts == 4


def test_a_missing_or_damaged_class_cache_leaves_the_learner_with_their_own(tmp_path, folder, capsys):
    missing = tmp_path / "never-built"
    learner = CountingEmbedder()
    DocIndex(folder, cache_dir=tmp_path / "anna", embedder=learner, shared_cache=missing)
    assert learner.texts == 4 and not missing.exists()
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    EmbeddingCache(damaged, CountingEmbedder.name).path.write_bytes(b"not a numpy file")
    learner = CountingEmbedder()
    DocIndex(folder, cache_dir=tmp_path / "ben", embedder=learner, shared_cache=damaged)
    assert learner.texts == 4 and "damaged embedding cache" in capsys.readouterr().err
    assert EmbeddingCache(damaged, CountingEmbedder.name).path.read_bytes() == b"not a numpy file"


def test_a_learners_kernel_finds_the_class_cache_through_the_variable_the_hub_sets(tmp_path, folder, shared):
    code = ("import sys\nimport numpy as np\nfrom course.search import DocIndex\n"
            "class E:\n    name = 'counting-test-embedder'\n    texts = 0\n"
            "    def encode(self, texts):\n        E.texts += len(texts)\n        return np.ones((len(texts), 64))\n"
            f"DocIndex({str(folder)!r}, cache_dir=sys.argv[1], embedder=E())\nprint(E.texts)")
    env = {k: v for k, v in os.environ.items() if k != "COURSE_SHARED_EMBEDDINGS"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    runs = [subprocess.run([sys.executable, "-c", code, str(tmp_path / learner)], env=env | extra,
                           capture_output=True, text=True, timeout=120)
            for learner, extra in [("anna", {"COURSE_SHARED_EMBEDDINGS": str(shared)}), ("ben", {})]]
    assert [r.stdout.strip() for r in runs] == ["0", "4"], [r.stderr[-500:] for r in runs]


def test_the_built_class_cache_is_readable_by_everyone_and_writable_by_its_owner_only(tmp_path, folder):
    sections, cache = build(tmp_path / "out", folder, embedder=CountingEmbedder())
    assert sections == 4 and cache.parent == tmp_path / "out"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o644 and stat.S_IMODE(cache.parent.stat().st_mode) == 0o755


def test_building_the_class_cache_without_the_model_stops_with_what_to_do(tmp_path, folder):
    with pytest.raises(SystemExit, match="did not load.*make doctor"):
        build(tmp_path / "out", folder, embedder="lexical")
