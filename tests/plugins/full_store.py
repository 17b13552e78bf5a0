"""Makes the store full once a run has begun, as a full disk does, for tests/test_exit_codes.py (MAGE_PLUGINS).

SQLite's max_page_count caps the database at the pages it holds after the run's first row, and a filler
table takes what room those pages still have, so the next row stored fails with SQLite's own "database or
disk is full" (SQLITE_FULL), however small it is."""

import sqlite3

from mage.store import Store

_begin_run = Store.begin_run


def _begin_run_then_fill(self, **run):
    run_id = _begin_run(self, **run)
    with self.db:
        self.db.execute("CREATE TABLE IF NOT EXISTS filler (junk BLOB)")
    pages = self.db.execute("PRAGMA page_count").fetchone()[0]
    self.db.execute(f"PRAGMA max_page_count = {pages}")
    for size in (4096, 512, 64, 8, 1):  # fill the free space down to the last bytes
        try:
            while True:
                with self.db:
                    self.db.execute("INSERT INTO filler VALUES (?)", (b"x" * size,))
        except sqlite3.OperationalError:
            pass
    return run_id


Store.begin_run = _begin_run_then_fill
