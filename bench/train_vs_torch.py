#!/usr/bin/python3
"""Training throughput, Braid vs PyTorch: LeNet and an MLP on Fashion-MNIST, same thread count.

Both sides train the same network (LeNet: conv 1->20 5x5, relu, maxpool 2 -> conv 20->50 5x5,
relu, maxpool 2 -> dense 128 relu -> dense 10; MLP: 784-256-256-10 relu) with SGD (lr 0.05,
momentum 0.9) and softmax cross-entropy, on batches sliced from the training set held in memory
(shuffled once), and report samples per second over the timed batches (after warm-up batches)
and the peak resident memory of their process. Each side runs in its own process, alternating,
and the best of --rounds is kept for each, so that other load on the machine hurts both alike.

Usage: /usr/bin/python3 bench/train_vs_torch.py --braid build/bin/train_bench [--threads 2]
       python3 bench/train_vs_torch.py --braid .../train_bench --device gpu   (on a GPU machine)

With --device gpu both sides train on GPU 0 with the training set copied there once (PyTorch's
side times between CUDA synchronizations); the memory columns are then the host processes'.
"""
import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import time

DATA = os.environ.get("BRAID_FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")


def load_fashion_mnist():
    import numpy as np
    with gzip.open(os.path.join(DATA, "train-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(os.path.join(DATA, "train-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    return images.astype(np.float32) / 255.0, labels.astype(np.int64)


def torch_worker(model, batch, warmup, batches, threads, device):
    import numpy as np
    import torch
    import torch.nn as nn
    if threads > 0:  # 0: PyTorch's own choice
        torch.set_num_threads(threads)
    torch.manual_seed(0)
    images, labels = load_fashion_mnist()
    order = np.random.RandomState(0).permutation(len(labels))
    dev = torch.device("cuda:0" if device == "gpu" else "cpu")
    x_all, y_all = torch.from_numpy(images[order]).to(dev), torch.from_numpy(labels[order]).to(dev)
    if model == "lenet":
        net = nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(20, 50, 5), nn.ReLU(),
                            nn.MaxPool2d(2), nn.Flatten(), nn.Linear(800, 128), nn.ReLU(), nn.Linear(128, 10))
    else:
        net = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                            nn.Linear(256, 10))
    net = net.to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    n = len(y_all) // batch
    loss = None
    for i in range(warmup + batches):
        if i == warmup:
            if device == "gpu":
                torch.cuda.synchronize()
            start = time.perf_counter()
        k = i % n
        x, y = x_all[k * batch:(k + 1) * batch], y_all[k * batch:(k + 1) * batch]
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
    final = loss.item()
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"samples_per_sec": batches * batch / seconds, "loss": final, "peak_rss_mb": peak_mb}))


def run_side(cmd, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--braid", help="path of build/bin/train_bench")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--batches", type=int, default=200, help="timed batches per run")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--models", default="lenet,mlp")
    ap.add_argument("--batch-sizes", default="64,256")
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu", help="train on the CPU or on GPU 0")
    ap.add_argument("--torch-worker", nargs=2, metavar=("MODEL", "BATCH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.torch_worker:
        torch_worker(args.torch_worker[0], int(args.torch_worker[1]), args.warmup, args.batches, args.threads,
                     args.device)
        return
    if not args.braid:
        ap.error("--braid is required")
    print(f"device: {args.device}, threads: {args.threads}, timed batches: {args.batches} (after {args.warmup}), best of {args.rounds}")
    print(f"{'model':6} {'batch':>5} {'braid samples/s':>16} {'hybrid samples/s':>16} {'torch samples/s':>16} "
          f"{'ratio':>6} {'hybrid/imp':>10} {'hybrid/torch':>12} {'braid MB':>9} {'hybrid MB':>9} {'torch MB':>9}")
    for model in args.models.split(","):
        for batch in [int(b) for b in args.batch_sizes.split(",")]:
            common = ["--warmup", str(args.warmup), "--batches", str(args.batches), "--device", args.device]
            braid_cmd = [args.braid, "--model", model, "--batch", str(batch)] + common  # threads: OMP_NUM_THREADS
            torch_cmd = [sys.executable, __file__, "--torch-worker", model, str(batch), "--threads",
                         str(args.threads)] + common
            best = {"braid": None, "hybrid": None, "torch": None}
            for _ in range(args.rounds):
                for side, cmd in (("braid", braid_cmd), ("hybrid", braid_cmd + ["--hybridize", "--static-alloc"]), ("torch", torch_cmd)):
                    r = run_side(cmd, args.threads)
                    if best[side] is None or r["samples_per_sec"] > best[side]["samples_per_sec"]:
                        best[side] = r
            b, h, t = best["braid"], best["hybrid"], best["torch"]
            print(f"{model:6} {batch:>5} {b['samples_per_sec']:>16.0f} {h['samples_per_sec']:>16.0f} "
                  f"{t['samples_per_sec']:>16.0f} {b['samples_per_sec'] / t['samples_per_sec']:>6.2f} "
                  f"{h['samples_per_sec'] / b['samples_per_sec']:>10.2f} {h['samples_per_sec'] / t['samples_per_sec']:>12.2f} "
                  f"{b['peak_rss_mb']:>9.0f} {h['peak_rss_mb']:>9.0f} {t['peak_rss_mb']:>9.0f}", flush=True)


if __name__ == "__main__":
    main()
