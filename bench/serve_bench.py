#!/usr/bin/python3
"""braid serve's throughput and latency (issue 8), next to in-process batched inference of the
same model in the same run.

Serves the MNIST fixture twice from one `braid serve`: "batched" (dynamic batching, up to 64 rows,
waiting up to 500 us) and "single" (no max_batch_size: each request runs alone). `braid infer` sends requests of
--request-batch images (default 1) at concurrency 1, 4 and 16 and reports images/s and latency
p50/p99; `inference_bench` runs the model in-process on batches of 64.

Usage: /usr/bin/python3 bench/serve_bench.py --build build [--limit 4000]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_runs import FIXTURES, IMAGES, add_mnist, start_server  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--limit", type=int, default=4000)
    ap.add_argument("--request-batch", type=int, default=1)
    args = ap.parse_args()
    braid = os.path.abspath(os.path.join(args.build, "bin", "braid"))
    images = IMAGES
    with tempfile.TemporaryDirectory() as repo:
        add_mnist(repo, "batched", {"max_batch_size": 64, "dynamic_batching": {"max_queue_delay_us": 500}})
        add_mnist(repo, "single", {})  # no max_batch_size: requests run as they come, never merged
        server, port = start_server(args.build, repo)
        try:
            def in_process():  # measured again next to every served run: the host drifts
                out = subprocess.run([os.path.join(args.build, "bin", "inference_bench"),
                                      os.path.join(FIXTURES, "mnist-symbol.json"),
                                      os.path.join(FIXTURES, "mnist-0035.params"), images, "64"],
                                     check=True, capture_output=True, text=True).stdout
                return float(re.search(r"([\d.]+) images/s", out).group(1))

            print(f"MNIST fixture, requests of {args.request_batch} image(s), {args.limit} images per run; "
                  "in-process: batches of 64, measured just before each served run")
            for model in ("batched", "single"):
                for concurrency in (1, 4, 16):
                    reference = in_process()
                    out = subprocess.run([braid, "infer", "--url", f"http://127.0.0.1:{port}", "--model", model,
                                          "--images", images, "--limit", str(args.limit), "--batch-size",
                                          str(args.request_batch), "--concurrency", str(concurrency)],
                                         check=True, capture_output=True, text=True).stdout
                    rate = float(re.search(r"([\d.]+) images/s", out).group(1))
                    p50 = float(re.search(r"p50 ([\d.]+) ms", out).group(1))
                    p99 = float(re.search(r"p99 ([\d.]+) ms", out).group(1))
                    print(f"  {model:8s} concurrency {concurrency:2d}: {rate:7.0f} images/s ({rate / reference:.2f}x "
                          f"in-process {reference:.0f}), p50 {p50:.2f} ms, p99 {p99:.2f} ms (p99/p50 {p99 / p50:.1f})")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
