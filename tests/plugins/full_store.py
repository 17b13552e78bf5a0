"""Makes the store full once a run has begun, as a full disk does, for tests/test_exit_codes.py (MAGE_PLUGINS).

SQLite's max_page_count caps the database at the pages it holds after the run's first row, so the next
write fails with SQLite's own "database or disk is full" (SQLITE_FULL)."""

from mage.store import Store

_begin_run = Store.begin_run


def _begin_run_then_fill(self, **run):
    run_id = _begin_run(self, **run)
    pages = self.db.execute("PRAGMA page_count").fetchone()[0]
    self.db.execute(f"PRAGMA max_page_count = {pages}")
    return run_id


Store.begin_run = _begin_run_then_fill
