"""A plugin that exits while it is imported, for the MAGE_PLUGINS error test (tests/test_exit_codes.py)."""

raise SystemExit(5)
