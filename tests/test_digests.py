"""A file's digest is remembered with its stat (a whole-project run asks for the same imported files' digests
once per checked file): a file rewritten since, even to the same size, gives its new digest."""

from __future__ import annotations

import os

from devlint.core.digests import closure_current, closure_entry, digest_of, file_digest


def test_a_rewritten_file_of_the_same_size_gives_its_new_digest(tmp_path):
    path = tmp_path / "helpers.py"
    path.write_bytes(b"device = 'cpu' ")
    first = file_digest(str(path))
    assert first == digest_of(b"device = 'cpu' ")
    path.write_bytes(b"device = 'cuda'")
    stamp = os.stat(path)
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))  # however coarse the clock
    assert file_digest(str(path)) == digest_of(b"device = 'cuda'")
    path.unlink()
    assert file_digest(str(path)) is None


def test_a_closure_is_current_until_one_of_its_files_changes(tmp_path):
    files = {}
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(f"# {name}\n")
        files[str(tmp_path / name)] = file_digest(str(tmp_path / name))
    _, text = closure_entry(files)
    assert closure_current(text, file_digest)
    (tmp_path / "b.py").write_text("# b.py, changed\n")
    assert not closure_current(text, file_digest)
