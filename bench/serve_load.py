#!/usr/bin/python3
"""A load test of braid serve with malformed requests mixed in (issue 8): for --seconds (60), 8
client threads send the MNIST fixture a mix of valid requests (JSON and binary, 1 to 16 images)
and bad ones (broken JSON, wrong shapes and datatypes, unknown models and inputs, a body over the
limit, a cut-short binary body). Counts every answer by status; the target is no crash and no 5xx
but deliberate 503s.

Usage: /usr/bin/python3 bench/serve_load.py --build build [--seconds 60]
"""
import argparse
import collections
import gzip
import http.client
import json
import os
import random
import struct
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_runs import IMAGES, add_mnist, start_server  # noqa: E402


def images():
    with gzip.open(IMAGES) as f:
        raw = f.read()[16:16 + 64 * 784]
    return [[b / 255.0 for b in raw[i * 784:(i + 1) * 784]] for i in range(64)]


def requests(pixels):
    """(path, body, headers) makers: valid ones, then bad ones."""
    def valid_json():
        n = random.randint(1, 16)
        data = [v for img in pixels[:n] for v in img]
        return "/v2/models/mnist/infer", json.dumps({"inputs": [{"name": "data", "shape": [n, 1, 28, 28],
                                                                 "datatype": "FP32", "data": data}]}), {}

    def valid_binary():
        n = random.randint(1, 16)
        header = json.dumps({"inputs": [{"name": "data", "shape": [n, 1, 28, 28], "datatype": "FP32",
                                         "parameters": {"binary_data_size": n * 784 * 4}}]})
        body = header.encode() + struct.pack(f"{n * 784}f", *[v for img in pixels[:n] for v in img])
        return "/v2/models/mnist/infer", body, {"Inference-Header-Content-Length": str(len(header))}

    bad = [
        lambda: ("/v2/models/mnist/infer", '{"inputs": [', {}),
        lambda: ("/v2/models/mnist/infer", json.dumps({"inputs": [{"name": "data", "shape": [1, 784],
                                                                   "datatype": "FP32", "data": [0] * 784}]}), {}),
        lambda: ("/v2/models/mnist/infer", json.dumps({"inputs": [{"name": "data", "shape": [1, 1, 28, 28],
                                                                   "datatype": "INT8", "data": [0] * 784}]}), {}),
        lambda: ("/v2/models/nope/infer", "{}", {}),
        lambda: ("/v2/models/mnist/infer", json.dumps({"inputs": [{"name": "x", "shape": [1], "datatype": "FP32",
                                                                   "data": [1]}]}), {}),
        lambda: ("/v2/models/mnist/infer", "x" * (2 << 20), {}),
        lambda: ("/v2/models/mnist/infer", valid_binary()[1][:-10], {"Inference-Header-Content-Length": "150"}),
        lambda: ("/v2/models/mnist/infer", json.dumps({"inputs": [{"name": "data", "shape": [100000000000, 1],
                                                                   "datatype": "FP64", "data": [1]}]}), {}),
    ]
    return [valid_json, valid_binary], bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--seconds", type=float, default=60)
    args = ap.parse_args()
    statuses = collections.Counter()
    lock = threading.Lock()
    with tempfile.TemporaryDirectory() as repo:
        add_mnist(repo, "mnist", {"max_batch_size": 64, "instance_count": 2,
                                  "dynamic_batching": {"max_queue_delay_us": 200, "max_queue_size": 64}})
        server, port = start_server(args.build, repo, "--max-body-mb", "1")
        good, bad = requests(images())
        end = time.time() + args.seconds

        def client(seed):
            rng = random.Random(seed)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            while time.time() < end:
                path, body, headers = rng.choice(bad)() if rng.random() < 0.2 else rng.choice(good)()
                try:
                    conn.request("POST", path, body=body, headers=headers)
                    r = conn.getresponse()
                    r.read()
                    status = r.status
                except (http.client.HTTPException, OSError):
                    status = "connection error"
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                with lock:
                    statuses[status] += 1

        threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        alive = server.poll() is None
        server.terminate()
        server.wait()
    total = sum(statuses.values())
    bad_5xx = sum(n for s, n in statuses.items() if isinstance(s, int) and s >= 500 and s != 503)
    print(f"{args.seconds:.0f} s, 8 clients, 20% malformed: {total} requests; by status: "
          + ", ".join(f"{s}: {n}" for s, n in sorted(statuses.items(), key=str)))
    print(f"server alive at the end: {alive}; 5xx other than 503: {bad_5xx}")


if __name__ == "__main__":
    main()
