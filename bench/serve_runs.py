"""What the serving benches share: the MNIST fixture as a model repository, and a braid serve on a
free port."""
import json
import os
import shutil
import socket
import subprocess
import time

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "fixtures", "mxnet")
IMAGES = os.path.join(FIXTURES, "mnist-t10k-images-idx3-ubyte.gz")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def add_mnist(repo, name, config):
    """The MNIST fixture as model `name`, version 1, with `config` (input shape added)."""
    d = os.path.join(repo, name, "1")
    os.makedirs(d)
    shutil.copy(os.path.join(FIXTURES, "mnist-symbol.json"), os.path.join(d, "model-symbol.json"))
    shutil.copy(os.path.join(FIXTURES, "mnist-0035.params"), os.path.join(d, "model-0035.params"))
    config = dict(config)
    config.setdefault("inputs", [{"name": "data", "datatype": "FP32", "shape": [1, 28, 28]}])
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config, f)


def start_server(build, repo, *options):
    """braid serve on a free port, once it had time to load; returns (process, port)."""
    port = free_port()
    server = subprocess.Popen([os.path.abspath(os.path.join(build, "bin", "braid")), "serve", "--model-repository",
                               repo, "--http-port", str(port), *options],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    return server, port
