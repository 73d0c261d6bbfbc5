"""Every example program in examples/ has a Python twin in examples/python/ that prints the same
numbers: both run here on a slice of Fashion-MNIST and their outputs are compared line by line,
times and speeds aside."""
import os
import re
import subprocess
import sys

import pytest

from conftest import BUILD_DIR

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TIMING = re.compile(r"(in |time )?[0-9.]+ sec|[0-9.]+ samples/s|speed-up [0-9.]+x")


def output(argv, cwd):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return [TIMING.sub("<time>", line) for line in done.stdout.splitlines()]


@pytest.mark.parametrize("example, args", [
    ("scratch_mlp", ["--epochs", "2", "--limit", "2000"]),
    ("gluon_lenet", ["--epochs", "2", "--limit", "2000"]),
    ("d2l_multi_device_lenet", ["--epochs", "1", "--limit", "2048"]),
    ("model_parallel_mlp", ["--batches", "8", "--batch", "256", "--hidden", "128"]),
])
def test_python_twin_prints_the_same_numbers(example, args, tmp_path):
    cpp = output([os.path.join(BUILD_DIR, "bin", example)] + args, tmp_path)
    python = output([sys.executable, os.path.join(ROOT, "examples", "python", example + ".py")] + args, tmp_path)
    assert len(cpp) >= 2 and any(ch.isdigit() for ch in "".join(cpp))
    assert python == cpp
