"""What the training benches share: braid train's LeNet command over --limit images, and its
samples/s read back from the JSON log."""
import argparse
import json
import os
import subprocess


def arguments(description):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--braid", default="build/bin/braid")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--limit", type=int, default=12800)
    return ap.parse_args()


def lenet_command(braid, limit):
    """braid train, LeNet, batch 64, one epoch over `limit` images."""
    return [os.path.abspath(braid), "train", "--model", "lenet", "--epochs", "1", "--batch-size", "64", "--limit",
            str(limit), "--test-limit", "100"]


def samples_per_sec(cmd, log, ranks=1):
    """Runs `cmd` (which writes the JSON log `log`); the first epoch's samples/s, times `ranks`."""
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(log) as f:
        return [json.loads(line) for line in f if line.strip()][0]["samples_per_sec"] * ranks
