"""A plugin whose import fails, for the MAGE_PLUGINS error test (tests/test_exit_codes.py)."""

raise RuntimeError("this plugin is broken on purpose")
