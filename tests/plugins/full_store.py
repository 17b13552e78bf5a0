"""Makes the store full once a run has begun, as a full disk does, for tests/test_exit_codes.py (MAGE_PLUGINS).

Every result the run stores then fails inside the store's own write transaction with SQLite's error for
a full database (SQLITE_FULL, "database or disk is full"), so the store's handling of it is what is
tested. (Capping SQLite's max_page_count instead depends on how much room the file's pages still have,
which differed between machines.)"""

import sqlite3

from mage.store import Store


def _add_result_on_a_full_disk(self, *args, **kwargs):
    with self.transaction():
        raise sqlite3.OperationalError("database or disk is full")


Store.add_result = _add_result_on_a_full_disk
