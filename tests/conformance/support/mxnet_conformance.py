"""pytest plugin for running Apache MXNet 1.9.1's own unit tests on Braid (loaded with -p).

It records each test's outcome as soon as it is known, one JSON line per test in the file named by
CONFORMANCE_RESULTS, so that a crash or a hang loses only the test that was running; and it brings
back the NumPy aliases (np.bool, np.int, ...) that NumPy 1.24 removed and MXNet 1.9.1's tests
still use."""
import json
import os
import resource
import time
import zlib

import numpy as _np

for _alias, _type in (("bool", bool), ("int", int), ("float", float), ("complex", complex),
                      ("object", object), ("str", str), ("long", int), ("unicode", str)):
    if _alias not in _np.__dict__:
        setattr(_np, _alias, _type)

_RESULTS = os.environ.get("CONFORMANCE_RESULTS")
# Tests not to run, by exact name (the runner's not-applicable list and the tests that crashed).
_DESELECT = set(filter(None, os.environ.get("CONFORMANCE_DESELECT", "").split("\n")))


# With the runner's --check, only these tests run (the must-pass list), by exact name.
_ONLY = set(filter(None, os.environ.get("CONFORMANCE_ONLY", "").split("\n")))


# The runner's --shards: this interpreter runs part INDEX of COUNT, the tests whose name hashes to it.
_SHARD, _SHARDS = (int(n) for n in os.environ.get("CONFORMANCE_SHARD", "0/1").split("/"))


def pytest_collection_modifyitems(config, items):
    def wanted(item):
        name = item.nodeid.split("::", 1)[1]  # "test_x" or, for a test class's method, "TestX::test_x"
        return (name not in _DESELECT and (not _ONLY or name in _ONLY)
                and zlib.crc32(item.name.encode()) % _SHARDS == _SHARD)
    dropped = [item for item in items if not wanted(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if wanted(item)]


def _record(**entry):
    entry["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024  # the interpreter's peak
    entry["time"] = time.monotonic()  # a test's seconds: its outcome's time less its start's
    if _RESULTS:
        with open(_RESULTS, "a") as f:
            f.write(json.dumps(entry) + "\n")


def pytest_runtest_logstart(nodeid, location):
    _record(test=nodeid, event="start")


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        outcome = report.outcome
        if report.when != "call" and outcome == "failed":
            outcome = "error"  # setup or teardown failed
        reason = ""
        if report.skipped and isinstance(report.longrepr, tuple):
            reason = str(report.longrepr[2])
        elif report.failed:
            reason = report.longrepr.reprcrash.message if hasattr(report.longrepr, "reprcrash") else str(report.longrepr)
        _record(test=report.nodeid, event=outcome, reason=reason.splitlines()[0][:300] if reason else "")


def pytest_collectreport(report):
    if report.failed:
        _record(test=report.nodeid, event="collect-error", reason=str(report.longrepr).strip().splitlines()[-1][:300])
