#!/usr/bin/python3
"""ResNet-18 training throughput on GPU 0, Braid vs PyTorch, on CIFAR shapes.

Both sides train the same network: MXNet's `resnet18_v1` with `thumbnail=True` (a 3x3
convolution stem without pooling, four stages of two basic blocks with 64, 128, 256 and 512
channels, global average pooling, a dense layer to 10 classes) on 3x32x32 images, SGD (lr 0.05,
momentum 0.9) and softmax cross-entropy, over four batches of random images made on the GPU and
used in turn. Samples per second over the timed steps (after warm-up steps), each side in a
process of its own, best of --rounds.

- float32: both sides in float32 (Braid without TF32, PyTorch with its defaults).
- bfloat16: Braid casts the network to bfloat16 (`net.cast`) and trains it with multi-precision
  SGD (float32 master weights); PyTorch runs its float32 network under `torch.autocast` in
  bfloat16 (float32 weights, bfloat16 convolutions and products). The loss is computed in float32.
- Braid "imperative" runs the network as it is, "hybrid" after
  `hybridize(static_alloc=True, static_shape=True)` (forward and backward replayed as CUDA graphs);
  PyTorch runs eager.

Usage (on a GPU machine, with PyTorch in python3):
    python3 bench/resnet_vs_torch.py --braid-python PYTHON [--batch-sizes 128,512] [--dtypes float32,bfloat16]
PYTHON runs the Braid side: a Python that imports `mxnet` as Braid (PYTHONPATH=build/python).
"""
import argparse
import json
import subprocess
import sys
import time


def braid_worker(batch, dtype, mode, warmup, steps):
    import mxnet as mx
    from mxnet import autograd, gluon, nd
    ctx = mx.gpu(0)
    mx.random.seed(0)
    net = gluon.model_zoo.vision.resnet18_v1(classes=10, thumbnail=True)
    net.initialize(mx.init.Xavier(), ctx=ctx)
    if dtype != "float32":
        net.cast(dtype)
    if mode == "hybrid":
        net.hybridize(static_alloc=True, static_shape=True)
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": 0.05, "momentum": 0.9, "multi_precision": dtype != "float32"})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    data = [(nd.random.uniform(shape=(batch, 3, 32, 32), ctx=ctx).astype(dtype),
             nd.random.randint(0, 10, shape=(batch,), ctx=ctx).astype("float32")) for _ in range(4)]
    for i in range(warmup + steps):
        if i == warmup:
            nd.waitall()
            start = time.perf_counter()
        x, y = data[i % len(data)]
        with autograd.record():
            loss = loss_fn(net(x).astype("float32"), y)
        loss.backward()
        trainer.step(batch)
    final = float(loss.mean().asscalar())
    return steps * batch / (time.perf_counter() - start), final


def torch_resnet18_cifar():
    import torch.nn as nn

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                                      nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
            self.downsample = None if cin == cout else nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                                                     nn.BatchNorm2d(cout))
            self.relu = nn.ReLU()

        def forward(self, x):
            residual = x if self.downsample is None else self.downsample(x)
            return self.relu(residual + self.body(x))

    layers = [nn.Conv2d(3, 64, 3, 1, 1, bias=False)]
    cin = 64
    for i, cout in enumerate((64, 128, 256, 512)):
        layers += [Block(cin, cout, 1 if i == 0 else 2), Block(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 10)]
    return nn.Sequential(*layers)


def torch_worker(batch, dtype, mode, warmup, steps):
    import torch
    torch.manual_seed(0)
    dev = torch.device("cuda:0")
    net = torch_resnet18_cifar().to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    data = [(torch.rand(batch, 3, 32, 32, device=dev), torch.randint(0, 10, (batch,), device=dev)) for _ in range(4)]
    autocast = dtype != "float32"
    for i in range(warmup + steps):
        if i == warmup:
            torch.cuda.synchronize()
            start = time.perf_counter()
        x, y = data[i % len(data)]
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
            out = net(x)
        loss = loss_fn(out.float(), y)
        loss.backward()
        opt.step()
    final = loss.item()  # synchronizes
    return steps * batch / (time.perf_counter() - start), final


def run_worker(python, side, batch, dtype, mode, args):
    cmd = [python, __file__, "--worker", side, str(batch), dtype, mode, "--warmup", str(args.warmup), "--steps",
           str(args.steps)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return {"error": " | ".join(tail)}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--braid-python", default=sys.executable, help="the Python that runs Braid's side")
    ap.add_argument("--batch-sizes", default="128,512")
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--modes", default="imperative,hybrid", help="Braid's modes")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--steps", type=int, default=50, help="timed steps per run")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300, help="seconds per run")
    ap.add_argument("--worker", nargs=4, metavar=("SIDE", "BATCH", "DTYPE", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        side, batch, dtype, mode = args.worker
        work = braid_worker if side == "braid" else torch_worker
        rate, loss = work(int(batch), dtype, mode, args.warmup, args.steps)
        print(json.dumps({"samples_per_sec": rate, "loss": loss}))
        return
    modes = args.modes.split(",")
    print(f"ResNet-18 (CIFAR shapes), samples/s over {args.steps} steps after {args.warmup}, best of {args.rounds}")
    print(f"{'dtype':9} {'batch':>5} " + " ".join(f"{'braid ' + m:>17}" for m in modes) +
          f" {'torch eager':>12} " + " ".join(f"{m + '/torch':>17}" for m in modes), flush=True)
    runs = [(m, args.braid_python, "braid", m) for m in modes] + [("torch", sys.executable, "torch", "eager")]
    for dtype in args.dtypes.split(","):
        for batch in [int(b) for b in args.batch_sizes.split(",")]:
            rates, errors = {}, {}  # the best samples/s of each run, or why it failed
            for _ in range(args.rounds):
                for key, python, side, mode in runs:
                    r = run_worker(python, side, batch, dtype, mode, args)
                    if "error" in r:
                        errors.setdefault(key, r["error"])
                    else:
                        rates[key] = max(rates.get(key, 0.0), r["samples_per_sec"])
            cell = lambda key, width: f"{rates[key]:>{width}.0f}" if key in rates else f"{'failed':>{width}}"
            ratios = [f"{rates[m] / rates['torch']:>17.2f}" if m in rates and "torch" in rates else f"{'-':>17}"
                      for m in modes]
            print(f"{dtype:9} {batch:>5} " + " ".join(cell(m, 17) for m in modes) + f" {cell('torch', 12)} " +
                  " ".join(ratios), flush=True)
            for key, why in errors.items():
                if key not in rates:
                    print(f"  {key}: {why}", flush=True)

if __name__ == "__main__":
    main()
