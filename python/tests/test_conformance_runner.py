"""tests/conformance/run.py: a file's tests dealt into --shards parts run once each, and the parts'
outcomes add up to the file's."""
import os
import subprocess
import sys

RUNNER = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "conformance", "run.py")


def test_shards_run_every_test_once(tmp_path):
    tests = tmp_path / "unittest"
    tests.mkdir()
    body = "".join("def test_%d():\n    open(%r, 'a').write('%d\\n')\n    assert %d != 4\n\n"
                   % (i, str(tmp_path / "ran.txt"), i, i) for i in range(9))
    (tests / "test_sample.py").write_text(body)
    package = os.path.dirname(os.path.abspath(__import__("mxnet").__file__))  # BUILD/python/mxnet
    build = os.path.dirname(os.path.dirname(package))
    out = subprocess.run([sys.executable, RUNNER, "--build", build, "--tests", str(tests), "--shards", "3",
                          "--jobs", "3", "-v", "test_sample.py"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "8 passed, 1 failed" in out.stdout
    assert "test_sample.py::test_4" in out.stdout
    assert "known failures (listed with their reason in known_failures.txt): 0; unexpected: 1 " \
           "(test_sample.py::test_4)" in out.stdout
    assert sorted(int(n) for n in (tmp_path / "ran.txt").read_text().split()) == list(range(9))
