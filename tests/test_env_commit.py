"""The commit a run records: its own checkout's, or the one a caller names for a copy of the tree."""

from mage.measure import env


def test_a_named_commit_is_recorded_clean_whatever_the_copy_s_git_says(monkeypatch):
    answers = {"rev-parse": "0" * 40, "status": " M python/mage/cli.py"}  # a copy with stale, dirty metadata
    monkeypatch.setattr(env, "_git", lambda *args: answers[args[0]])
    monkeypatch.delenv("MAGE_GIT_DIRTY", raising=False)
    monkeypatch.delenv("MAGE_GIT_COMMIT", raising=False)
    assert env.capture("cpu")["git_dirty"] is True
    monkeypatch.setenv("MAGE_GIT_COMMIT", "f" * 40)
    captured = env.capture("cpu")
    assert captured["git_commit"] == "f" * 40 and captured["git_dirty"] is False
    monkeypatch.setenv("MAGE_GIT_DIRTY", "1")
    assert env.capture("cpu")["git_dirty"] is True
