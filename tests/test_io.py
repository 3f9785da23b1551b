import pytest

from ml_assets.core.infra.io import (
    ArtifactIntegrityError,
    ArtifactRef,
    manifest_digest,
    safe_join,
    staged_directory,
    verify_entry,
)


def test_staged_directory_commits_with_manifest(tmp_path):
    final = tmp_path / "asset" / "key"
    with staged_directory(final) as tmp:
        (tmp / "a.txt").write_text("hello")
        (tmp / "sub").mkdir()
        (tmp / "sub" / "b.bin").write_bytes(b"\x00\x01")
        assert not final.exists()  # nothing visible before commit
    manifest = verify_entry(final)
    assert sorted(manifest["files"]) == ["a.txt", "sub/b.bin"]
    assert [p.name for p in (tmp_path / "asset").iterdir()] == ["key"]  # no temp leftovers


def test_failure_inside_leaves_nothing(tmp_path):
    final = tmp_path / "asset" / "key"
    with pytest.raises(RuntimeError), staged_directory(final) as tmp:
        (tmp / "a.txt").write_text("partial")
        raise RuntimeError("crash mid-write")
    assert not final.exists()
    assert list((tmp_path / "asset").iterdir()) == []


def test_flipped_byte_is_detected(tmp_path):
    final = tmp_path / "e"
    with staged_directory(final) as tmp:
        (tmp / "weights.bin").write_bytes(b"abcdef")
    (final / "weights.bin").write_bytes(b"abcdeX")
    with pytest.raises(ArtifactIntegrityError, match="does not match the manifest"):
        verify_entry(final)


def test_missing_manifest_means_incomplete(tmp_path):
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "x").write_text("1")
    with pytest.raises(ArtifactIntegrityError, match="incomplete"):
        verify_entry(tmp_path / "e")


def test_digest_depends_on_content_only(tmp_path):
    for name, meta in (("a", {"run": 1}), ("b", {"run": 2})):
        with staged_directory(tmp_path / name, meta=meta) as tmp:
            (tmp / "f").write_text("same")
    assert manifest_digest(verify_entry(tmp_path / "a")) == manifest_digest(
        verify_entry(tmp_path / "b")
    )


def test_ref_verification_catches_swapped_content(tmp_path):
    with staged_directory(tmp_path / "e") as tmp:
        (tmp / "f").write_text("v1")
    ref = ArtifactRef("asset", str(tmp_path / "e"), manifest_digest(verify_entry(tmp_path / "e")))
    assert ref.verified() == ref
    ref_wrong = ArtifactRef("asset", ref.path, "0" * 64)
    with pytest.raises(ArtifactIntegrityError, match="digest changed"):
        ref_wrong.verified()


def test_safe_join_refuses_escape(tmp_path):
    assert safe_join(tmp_path, "a", "b") == (tmp_path / "a" / "b").resolve()
    with pytest.raises(ValueError, match="escapes"):
        safe_join(tmp_path, "..", "etc")


def test_concurrent_writers_of_one_key_both_succeed(tmp_path):
    """Two materializations of the same fingerprint at once: one entry wins, none corrupts."""
    import threading

    final, barrier, errors = tmp_path / "asset" / "fp", threading.Barrier(2), []

    def write(payload: bytes) -> None:
        try:
            with staged_directory(final) as tmp:
                (tmp / "model.bin").write_bytes(payload * 100_000)
                barrier.wait()  # both have built their entry before either commits
        except Exception as err:  # collected and asserted below
            errors.append(err)

    threads = [threading.Thread(target=write, args=(p,)) for p in (b"a", b"a")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    verify_entry(final)
    assert [p.name for p in final.parent.iterdir()] == ["fp"]
