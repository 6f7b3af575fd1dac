"""The tokens file is the teacher's alone from its first byte: no moment in which another account reads it.

A file written with the umask (0644) and chmod-ed afterwards is readable in between: in the
rehearsal another account read all 30 tokens. The check here needs no race: the write runs in a
child process with an audit hook that, at every file-system step Python announces (each open,
chmod, rename), looks at every file in the folder and records any that holds bytes and can be
read by others. The write is then safe at every step, not only at its end.
"""

import json
import stat
import subprocess
import sys

from course.classroom.learners import new_tokens, read_tokens, write_tokens

WATCH = r'''
import json, os, stat, sys
folder, target = sys.argv[1], sys.argv[2]
seen = []

def look(event, args):
    if event in ("open", "os.chmod", "os.rename", "os.replace", "os.remove") and not seen[-1:] == ["busy"]:
        seen.append("busy")  # os.scandir below raises events of its own
        try:
            for entry in os.scandir(folder):
                st = entry.stat()
                if st.st_size and stat.S_IMODE(st.st_mode) & 0o077:
                    seen.append(f"{event}: {entry.name} is {oct(stat.S_IMODE(st.st_mode))} with {st.st_size} bytes")
        finally:
            seen.remove("busy")

os.umask(0o022)  # the usual umask: a plain write makes the file 0644
sys.addaudithook(look)
from course.classroom.server import main
main(["--new-tokens", "5", "--tokens", target])
look("end", ())
print(json.dumps(seen))
'''


def readable_moments(tmp_path) -> list[str]:
    target = tmp_path / "tokens.txt"
    done = subprocess.run([sys.executable, "-c", WATCH, str(tmp_path), str(target)], capture_output=True, text=True,
                          timeout=60, check=True)
    assert len(read_tokens(target)) == 5
    return json.loads(done.stdout.splitlines()[-1])


def test_no_moment_of_writing_new_tokens_leaves_them_readable_by_other_accounts(tmp_path):
    assert readable_moments(tmp_path) == []
    assert stat.S_IMODE((tmp_path / "tokens.txt").stat().st_mode) == 0o600


def test_the_watch_sees_a_file_written_then_chmod_ed(tmp_path):
    """The check can fail: a plain write_text + chmod, as the class server did before, is caught."""
    spy = WATCH.replace('from course.classroom.server import main\nmain(["--new-tokens", "5", "--tokens", target])',
                        'from pathlib import Path\nfrom course.classroom.learners import new_tokens\n'
                        'Path(target).write_text(new_tokens(["a", "b", "c", "d", "e"])); os.chmod(target, 0o600)')
    target = tmp_path / "tokens.txt"
    done = subprocess.run([sys.executable, "-c", spy, str(tmp_path), str(target)], capture_output=True, text=True,
                          timeout=60, check=True)
    assert any("os.chmod: tokens.txt is 0o644" in moment for moment in json.loads(done.stdout.splitlines()[-1]))


def test_rewriting_a_file_that_was_readable_makes_it_private_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "tokens.txt"
    path.write_text("old\n")
    path.chmod(0o644)
    write_tokens(path, new_tokens(["anna"]))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and list(read_tokens(path).values()) == ["anna"]
    assert [p.name for p in tmp_path.iterdir()] == ["tokens.txt"]


def test_a_late_learner_added_with_class_add_is_served_by_the_running_class_server(tmp_path):
    import anyio

    from course.classroom.roster import main as class_add
    from course.classroom.server import serving
    from course.host import McpHost, ServerError, http

    tokens = tmp_path / "tokens.txt"
    write_tokens(tokens, new_tokens(["anna"]))

    async def search(url: str, token: str) -> str:
        async with McpHost(quiet=True) as host:
            await host.connect("shop", http(url, token=token), allow={"search_docs"})
            return await host.execute("search_docs", '{"query": "who pays for returns"}')

    with serving(tokens, "--embedder", "lexical", "--data", str(tmp_path / "class")) as url:
        assert "returns" in anyio.run(search, url, next(iter(read_tokens(tokens))))
        assert class_add(["--tokens", str(tokens), "--add", "zoe"]) == 0  # the server keeps running
        zoe = {name: token for token, name in read_tokens(tokens).items()}["zoe"]
        assert "returns" in anyio.run(search, url, zoe)
        try:
            anyio.run(search, url, "z" * 24)
            raise AssertionError("an unknown token was served")
        except ServerError as e:
            assert "401" in str(e) or "token" in str(e)
    assert "search_docs" in (tmp_path / "class" / "zoe" / "calls.jsonl").read_text()  # zoe's own workspace
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600


def test_adding_a_name_the_tokens_file_already_holds_is_refused_and_changes_nothing(tmp_path, capsys):
    import pytest

    from course.classroom.roster import main as class_add

    tokens = tmp_path / "tokens.txt"
    write_tokens(tokens, new_tokens(["anna"]))
    before = tokens.read_text()
    for name in ("anna", "../zoe"):
        with pytest.raises(SystemExit):
            class_add(["--tokens", str(tokens), "--add", name])
    assert tokens.read_text() == before and "already" in capsys.readouterr().err


def test_a_names_file_line_with_a_space_is_refused_with_its_line_and_no_tokens_file_is_written(tmp_path, capsys):
    import pytest

    from course.classroom.server import main

    tokens = tmp_path / "tokens.txt"
    for names in ("anna\nben smith\n", "anna\n# the late ones\n\nben\nanna\n", "# nobody yet\n"):
        (tmp_path / "names.txt").write_text(names)
        with pytest.raises(SystemExit) as exit:
            main(["--tokens", str(tokens), "--new-tokens", "2", "--names", str(tmp_path / "names.txt")])
        assert exit.value.code == 2 and not tokens.exists()
    err = capsys.readouterr().err
    assert "line 2: 'ben smith'" in err and "ben.smith" in err  # one person's full name, not two learners
    assert "anna appears twice" in err and "holds no name" in err


def test_a_names_file_with_comments_and_blank_lines_gives_a_token_to_each_name_and_says_the_count(tmp_path, capsys):
    from course.classroom.server import main

    (tmp_path / "names.txt").write_text("# the class\nanna\n\n  ben  \ncara # late\n")
    main(["--tokens", str(tmp_path / "tokens.txt"), "--new-tokens", "2", "--names", str(tmp_path / "names.txt")])
    assert sorted(read_tokens(tmp_path / "tokens.txt").values()) == ["anna", "ben", "cara"]
    out = capsys.readouterr().out
    assert "wrote 3 tokens" in out and "the 3 names in" in out and "not 2" in out  # N differs: the file wins, said
