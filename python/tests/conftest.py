"""Shared by the Python tests: the fixture folder and a fixed seed per test."""
import os

import pytest

import braid as mx

# The build tree: PYTHONPATH's first entry is <build>/python.
BUILD_DIR = os.path.abspath(os.path.join(os.environ["PYTHONPATH"].split(os.pathsep)[0], ".."))
FIXTURES = os.environ.get("BRAID_FIXTURES_DIR",
                          os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "fixtures", "mxnet"))


@pytest.fixture(autouse=True)
def seeded():
    mx.random.seed(42)
    yield
    mx.nd.waitall()
