"""What a test needs from the machine: elsewhere a missing tool skips the test, under CI=true it fails.

CI installs everything the tests need (.ci/run), so there a skip would be a test that cannot fail.
"""

import functools
import os

import pytest


def in_ci() -> bool:
    return os.environ.get("CI") == "true"


def required(missing: bool, reason: str):
    """Decorate a test that needs something: ``missing`` says it is absent here, ``reason`` what it is."""
    if not missing:
        return lambda test: test
    if not in_ci():
        return pytest.mark.skip(reason=reason)

    def failing(test):
        @functools.wraps(test)
        def fail(*args, **kwargs):
            pytest.fail(f"{reason}, and CI=true: CI must provide it")

        return fail

    return failing
