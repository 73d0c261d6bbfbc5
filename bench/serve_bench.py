#!/usr/bin/python3
"""braid serve's throughput and latency (issue 8), next to in-process batched inference of the
same model in the same run.

Serves the MNIST fixture from one `braid serve` as "batched" (dynamic batching up to 64 rows,
waiting up to 500 us) and "single" (no merging: each request runs alone), each with --instances
copies of the model (copy i on cpu(i)). `braid infer` sends binary requests of 1, 16 and 64
images at concurrency 1, 4 and 16, after 2 untimed warm-up requests per connection. Just before
every served run, `inference_bench` runs the model in-process on batches of 64 with 1 and with
--instances copies; the ratio is to the better of the two. Each cell is the median of --rounds.

Usage: /usr/bin/python3 bench/serve_bench.py --build build [--instances 2] [--rounds 3]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_runs import FIXTURES, IMAGES, add_mnist, start_server  # noqa: E402

IMAGES_PER_RUN = {1: 3000, 16: 10000, 64: 20000}  # ~0.5-1 s each here


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--instances", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--request-batch", type=int, nargs="*", default=[1, 16, 64])
    ap.add_argument("--concurrency", type=int, nargs="*", default=[1, 4, 16])
    args = ap.parse_args()
    braid = os.path.abspath(os.path.join(args.build, "bin", "braid"))
    bench = os.path.join(args.build, "bin", "inference_bench")

    def in_process(instances):
        out = subprocess.run([bench, os.path.join(FIXTURES, "mnist-symbol.json"),
                              os.path.join(FIXTURES, "mnist-0035.params"), IMAGES, "64", str(instances), "2"],
                             check=True, capture_output=True, text=True).stdout
        return float(re.search(r"([\d.]+) images/s", out).group(1))

    def served(port, model, request_batch, concurrency):
        total = IMAGES_PER_RUN.get(request_batch, 10000)
        limit, passes = min(total, 10000), max(1, total // 10000)
        out = subprocess.run([braid, "infer", "--url", f"http://127.0.0.1:{port}", "--model", model, "--images",
                              IMAGES, "--limit", str(limit), "--passes", str(passes), "--warmup", "2",
                              "--batch-size", str(request_batch), "--concurrency", str(concurrency)],
                             check=True, capture_output=True, text=True).stdout
        return (float(re.search(r"([\d.]+) images/s", out).group(1)), float(re.search(r"p50 ([\d.]+) ms", out).group(1)),
                float(re.search(r"p99 ([\d.]+) ms", out).group(1)))

    with tempfile.TemporaryDirectory() as repo:
        add_mnist(repo, "batched", {"max_batch_size": 64, "instance_count": args.instances,
                                    "dynamic_batching": {"max_queue_delay_us": 500}})
        add_mnist(repo, "single", {"instance_count": args.instances})  # no max_batch_size: never merged
        server, port = start_server(args.build, repo)
        try:
            print(f"MNIST fixture, {args.instances} instance(s), median of {args.rounds} rounds; ratio to the better of "
                  f"in-process batch 64 with 1 or {args.instances} instance(s), measured before each served run")
            print("| requests of | model | " + " | ".join(f"c={c}: images/s, ratio (p50/p99 ms, p99/p50)"
                                                       for c in args.concurrency) + " |")
            print("|---|---|" + "---|" * len(args.concurrency))
            references = []
            for request_batch in args.request_batch:
                for model in ("batched", "single"):
                    cells = []
                    for concurrency in args.concurrency:
                        runs = []
                        for _ in range(args.rounds):
                            reference = max(in_process(1), in_process(args.instances))
                            references.append(reference)
                            rate, p50, p99 = served(port, model, request_batch, concurrency)
                            runs.append((rate / reference, rate, p50, p99))
                        ratio, rate, p50, p99 = (statistics.median(r[i] for r in runs) for i in range(4))
                        cells.append(f"{rate:,.0f}, {ratio:.2f} ({p50:.2f}/{p99:.2f}, {p99 / p50:.1f})")
                    print(f"| {request_batch} image{'s' if request_batch > 1 else ''} | {model} | "
                          + " | ".join(cells) + " |", flush=True)
            print(f"in-process references: {min(references):,.0f}-{max(references):,.0f} images/s "
                  f"(median {statistics.median(references):,.0f})")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
