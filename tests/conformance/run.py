#!/usr/bin/env python3
"""Runs Apache MXNet 1.9.1's own unit tests, unmodified, on Braid (``import mxnet`` is Braid).

Each in-scope file (in_scope.txt) runs under pytest in an interpreter of its own, in a scratch
folder; a test that crashes the interpreter or runs past --test-timeout is recorded as such and the
file goes on without it. Prints a table per file and a closing ``N passed, M failed`` line.

With --check, runs only the tests named in must_pass.txt and exits 1 when one did not pass (what
`make test` runs).
With --write-must-pass, rewrites must_pass.txt as the tests that passed in this run.
Tests in not_applicable.txt (they need the internet or a GPU) are not run; the table counts them.
known_failures.txt names the tests that fail today, each with its reason; a failure it does not
name is reported as unexpected.
With --shards N, each file's tests are dealt into N parts (by a hash of the test's name) run by
interpreters of their own, so that one long file can use several cores.
Where the MXNet test folder is absent, says so and exits 0.
"""
import argparse
import ast
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_TESTS = os.path.join(os.path.dirname(REPO), "shared", "mxnet-1.9.1-tests", "unittest")
PASSED, FAILED, ERROR, SKIPPED, CRASHED, HUNG = "passed", "failed", "error", "skipped", "crashed", "hung"
CUT = "cut"  # running when --budget ran out: neither passed nor failed


def read_list(name):
    """The non-comment lines of one of this folder's lists."""
    with open(os.path.join(HERE, name)) as f:
        return [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]


def reasons(name):
    """{test id: reason} of a list whose lines are a test id, two spaces or more, a reason."""
    found = {}
    for line in read_list(name):
        test, _, reason = line.partition("  ")
        found[test.strip()] = reason.strip()
    return found


def test_functions(path):
    """The names of a file's module-level test functions (what a file that fails to import would
    have run)."""
    with open(path) as f:
        tree = ast.parse(f.read())
    return [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test")]


def read_events(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.endswith("\n")]


class FileRun:
    """One test file's outcomes: {test id: (outcome, reason)}."""

    def __init__(self, name):
        self.name = name
        self.outcomes = {}
        self.test_seconds = {}  # {test id: seconds from its start to its outcome}
        self.seconds = 0.0
        self.cut_short = False  # --budget ran out before the file ended

    def count(self, outcome):
        return sum(1 for o, _ in self.outcomes.values() if o == outcome)


_live = set()  # the pytest processes running now, killed if the runner itself is stopped
_stopping = threading.Event()


def _kill_live(*_):
    _stopping.set()
    for process in list(_live):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    sys.exit(130)


def run_file(args, name, skip, shard=0):
    """Runs one file (its part ``shard`` of --shards), restarting after a crash or a hang without
    the test that caused it."""
    run = FileRun(name)
    started = time.monotonic()
    deselected = [t for t in skip if t.startswith(name + "::")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(args.build, "python"), os.path.join(HERE, "support")]),
               PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"),
               CONFORMANCE_SHARD="%d/%d" % (shard, args.shards))
    if args.seed is not None:
        env.setdefault("MXNET_TEST_SEED", str(args.seed))
        env.setdefault("MXNET_MODULE_SEED", str(args.seed))
    with tempfile.TemporaryDirectory(prefix="mxnet-conformance-") as scratch:
        for attempt in range(50):
            if _stopping.is_set():
                break
            if args.deadline is not None and time.monotonic() > args.deadline:
                run.cut_short = True
                break
            results = os.path.join(scratch, "results-%d.jsonl" % attempt)
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "mxnet_conformance",
                       "-o", "console_output_style=classic", "--rootdir", scratch, os.path.join(args.tests, name)]
            with open(os.path.join(scratch, "log-%d.txt" % attempt), "w") as log:
                deselect = "\n".join(test.split("::", 1)[1] for test in deselected)
                only = "\n".join(t.split("::", 1)[1] for t in args.only or () if t.startswith(name + "::"))
                if args.only is not None and not only:
                    break  # --check: nothing of this file must pass
                process = subprocess.Popen(command, cwd=scratch,
                                           env=dict(env, CONFORMANCE_RESULTS=results, CONFORMANCE_DESELECT=deselect,
                                                    CONFORMANCE_ONLY=only),
                                           stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
                _live.add(process)
                try:
                    stuck = wait_with_progress(process, results, args.test_timeout, args.deadline)
                finally:
                    _live.discard(process)
            events = read_events(results)
            running, started_at = None, None
            for event in events:
                test = name + "::" + event["test"].split("::", 1)[1] if "::" in event["test"] else name
                if event["event"] == "start":
                    running, started_at = test, event["time"]
                elif event["event"] == "collect-error":
                    for test in test_functions(os.path.join(args.tests, name)):
                        run.outcomes[name + "::" + test] = (ERROR, "collection: " + event["reason"])
                else:
                    run.outcomes[test] = (event["event"], event.get("reason", ""))
                    if test == running:
                        run.test_seconds[test] = event["time"] - started_at
                        running = None
            if stuck == CUT:
                run.cut_short = True
                if running is not None:
                    run.outcomes[running] = (CUT, "running when the time budget ran out")
                break
            if running is None or process.returncode == 0:
                if process.returncode not in (0, 1, 5) and not run.outcomes:
                    with open(os.path.join(scratch, "log-%d.txt" % attempt)) as log:
                        run.outcomes[name] = (ERROR, "pytest exited %d: %s" % (process.returncode, log.read()[-300:]))
                break
            run.outcomes[running] = (HUNG, "ran past %d s" % args.test_timeout) if stuck else \
                (CRASHED, "the interpreter died (exit %d)" % process.returncode)
            deselected.append(running)
    run.seconds = time.monotonic() - started
    return run


def wait_with_progress(process, results, test_timeout, deadline):
    """Waits for the process; kills it when one test runs past test_timeout (returns True) or the
    run's time budget ends (returns CUT)."""
    last_change, last_size = time.monotonic(), -1
    while True:
        try:
            process.wait(timeout=0.2)  # the state waited for: the interpreter has ended
            return False
        except subprocess.TimeoutExpired:
            pass
        size = os.path.getsize(results) if os.path.exists(results) else 0
        if size != last_size:
            last_change, last_size = time.monotonic(), size
        elif time.monotonic() - last_change > test_timeout:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return True
        if deadline is not None and time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return CUT


def merge_parts(parts):
    """One file's run from the runs of its parts (the seconds of the longest part)."""
    run = FileRun(parts[0].name)
    for part in parts:
        run.test_seconds.update(part.test_seconds)
        for test, outcome in part.outcomes.items():
            if test not in run.outcomes or outcome[0] != ERROR:  # a collection error is every part's
                run.outcomes[test] = outcome
        run.seconds = max(run.seconds, part.seconds)
        run.cut_short = run.cut_short or part.cut_short
    return run


def print_table(runs, skip):
    header = "%-30s %7s %7s %7s %7s %5s %8s %7s" % ("file", "passed", "failed", "errors", "skipped", "n/a",
                                                    "crashed", "seconds")
    print(header)
    print("-" * len(header))
    for run in runs:
        na = sum(1 for t in skip if t.startswith(run.name + "::"))
        print("%-30s %7d %7d %7d %7d %5d %8d %7.0f" % (
            run.name, run.count(PASSED), run.count(FAILED), run.count(ERROR), run.count(SKIPPED), na,
            run.count(CRASHED) + run.count(HUNG), run.seconds))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help="test files to run (default: in_scope.txt)")
    parser.add_argument("--build", default=os.path.join(REPO, "build"), help="Braid's build folder")
    parser.add_argument("--tests", default=os.environ.get("MXNET_TESTS_DIR", DEFAULT_TESTS),
                        help="MXNet's tests/python/unittest folder (default: $MXNET_TESTS_DIR or %(default)s)")
    parser.add_argument("--jobs", type=int, default=2, help="files (or parts of files) run at once")
    parser.add_argument("--shards", type=int, default=1, help="parts each file's tests are dealt into")
    parser.add_argument("--test-timeout", type=int, default=300, help="seconds one test may run")
    parser.add_argument("--seed", type=int, default=1, help="MXNET_TEST_SEED and MXNET_MODULE_SEED (-1: random)")
    parser.add_argument("--check", action="store_true",
                        help="run only the tests of must_pass.txt; exit 1 when one did not pass")
    parser.add_argument("--write-must-pass", action="store_true", help="rewrite must_pass.txt from this run")
    parser.add_argument("--budget", type=float, help="seconds the whole run may take: then the running tests are "
                        "stopped, and the tests not yet run are reported as not reached")
    parser.add_argument("--slowest", type=int, default=0, metavar="N", help="list the N slowest tests")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every test that did not pass")
    args = parser.parse_args()
    args.tests = os.path.abspath(args.tests)
    args.build = os.path.abspath(args.build)
    args.deadline = time.monotonic() + args.budget if args.budget else None
    if args.seed < 0:
        args.seed = None
    if not os.path.isdir(args.tests):
        print("conformance: no MXNet test folder at %s (set MXNET_TESTS_DIR); nothing to run" % args.tests)
        return 0

    signal.signal(signal.SIGTERM, _kill_live)
    signal.signal(signal.SIGINT, _kill_live)
    files = args.files or read_list("in_scope.txt")
    args.only = read_list("must_pass.txt") if args.check else None
    skip = reasons("not_applicable.txt")
    known = reasons("known_failures.txt")
    # Biggest files first (test_operator.py takes a third of the run), so that the long ones do not
    # start last while the other interpreters have nothing left to do.
    jobs = sorted(((name, shard) for name in files for shard in range(args.shards)),
                  key=lambda job: -os.path.getsize(os.path.join(args.tests, job[0])))
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        parts = dict(zip(jobs, pool.map(lambda job: run_file(args, job[0], skip, job[1]), jobs)))
    runs = [merge_parts([parts[(name, shard)] for shard in range(args.shards)]) for name in files]

    print_table(runs, skip)
    if args.slowest:
        seconds = {test: s for run in runs for test, s in run.test_seconds.items()}
        for test in sorted(seconds, key=seconds.get, reverse=True)[:args.slowest]:
            print("%7.1f s  %s" % (seconds[test], test))
    outcomes = {test: result for run in runs for test, result in run.outcomes.items()}
    passed = sorted(t for t, (o, _) in outcomes.items() if o == PASSED)
    failing = sorted(t for t, (o, _) in outcomes.items() if o in (FAILED, ERROR, CRASHED, HUNG))
    unexpected = [t for t in failing if t not in known]
    if args.verbose:
        for test in failing:
            why = "known: " + known[test] if test in known else "not in known_failures.txt"
            print("%s  %s (%s): %s" % (test, outcomes[test][0], why, outcomes[test][1]))
        for test in sorted(t for t, (o, _) in outcomes.items() if o == SKIPPED):
            print("%s  skipped by the test: %s" % (test, outcomes[test][1]))
        for test in sorted(t for t in skip if t.split("::")[0] in files):
            print("%s  not applicable: %s" % (test, skip[test]))
    print("%d passed, %d failed (%.1f%% of %d run; %d skipped by the tests themselves, %d not applicable)" % (
        len(passed), len(failing), 100.0 * len(passed) / max(1, len(passed) + len(failing)),
        len(passed) + len(failing), sum(r.count(SKIPPED) for r in runs),
        sum(1 for t in skip if t.split("::")[0] in files)))
    if failing:
        print("known failures (listed with their reason in known_failures.txt): %d; unexpected: %d%s" % (
            len(failing) - len(unexpected), len(unexpected), (" (" + ", ".join(unexpected) + ")") if unexpected else ""))
    now_passing = sorted(t for t in known if outcomes.get(t, ("absent",))[0] == PASSED)
    if now_passing:
        print("listed in known_failures.txt but passed (take them off the list): " + ", ".join(now_passing))
    cut = [run.name for run in runs if run.cut_short]
    if cut:
        print("the time budget (%.0f s) ran out: the rest of %s did not run" % (args.budget, ", ".join(cut)))

    if args.write_must_pass:
        kept = [t for t in read_list("must_pass.txt") if t.split("::")[0] not in files]
        with open(os.path.join(HERE, "must_pass.txt"), "w") as f:
            f.write("# MXNet unit tests that must pass on Braid (`make test` fails otherwise); written by\n"
                    "# tests/conformance/run.py --write-must-pass.\n")
            f.write("\n".join(sorted(kept + passed)) + "\n")
    if args.check:
        ran = set(files)
        broken = [t for t in read_list("must_pass.txt") if t.split("::")[0] in ran and outcomes.get(t, ("absent",))[0] != PASSED]
        for test in broken:
            print("MUST PASS, did not: %s  %s: %s" % (test, *outcomes.get(test, ("absent", "not run"))))
        if broken:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
