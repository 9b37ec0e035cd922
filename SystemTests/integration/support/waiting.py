"""Polling until something the system under test does asynchronously has happened."""
import time


def wait_for(predicate, timeout=15.0):
    """`predicate()` polled every 0.2 s until truthy; its last value (falsy when the time ran out)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    return predicate()


def wait_until(condition, timeout=5):
    """`condition` polled until true; an element replaced while it was read (the app swaps fragments) counts as
    not yet."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    def holds():
        try:
            return condition()
        except (StaleElementReferenceException, NoSuchElementException):
            return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if holds():
            return True
        time.sleep(0.05)
    return holds()
