#!/usr/bin/python3
"""Weak-scaling efficiency of a simulated cluster (issue 30, part 4).

Runs `braid simulate` (a worker whose compute is a calibrated wait of --step-ms per step, with
--model's parameters on the wire, divided by --scale) as N workers of a job, for each N and
each store: dist_sync (`braid launch -n N -s S`), dist_sync with 2-bit compression, and the
horovod store (`mpirun -np N`). A worker's efficiency is --step-ms over its measured step; the
table gives the workers' mean for each N, and --plot draws the curves with gnuplot.

On a small machine the processes share its cores: --scale K shrinks every tensor K times, so
that the copies, sums and optimizer updates of N workers fit (a link of rate R then behaves as
one of rate K x R for the full model). Every process runs one OpenMP thread.

--link RATE (as root) puts the parameter-server jobs on a network: each server and worker in a
network namespace of its own (bench/netns_cluster.sh: server s and worker s share machine s, as
braid launch's ssh launcher places them), its link shaped to RATE both ways (tc tbf), plus
--delay where the kernel has sch_netem; the horovod store's ranks, one per machine, talk over
the same links (OpenMPI's TCP transport, started through bench/netns_ssh.sh).

Usage: /usr/bin/python3 bench/simulated_cluster.py --braid build/bin/braid --workers 1,2,4,8
           [--model resnet50_v1] [--step-ms 100] [--scale 16] [--servers S] [--plot scaling.png]
           [--link 1562mbit [--delay 25us]]
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

STORES = {"dist_sync": ("dist_sync", ""), "dist_sync 2-bit": ("dist_sync", "2bit"), "horovod": ("horovod", "")}


def run(args, store, compression, workers, log):
    sim = [args.braid, "simulate", "--model", args.model, "--step-ms", str(args.step_ms), "--steps", str(args.steps),
           "--warmup", str(args.warmup), "--scale", str(args.scale), "--kvstore", store, "--json", log]
    if compression:
        sim += ["--compression", compression]
    if store != "horovod":
        sim += ["--keys-per-list", str(args.keys_per_list)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    ssh = os.path.join(HERE, "netns_ssh.sh")
    if store == "horovod":  # MPI ranks: on the machines over TCP (no shared memory between them)
        cmd = [args.braid, "launch", "--launcher", "mpi", "-n", str(workers), "-s", "0"]
        if args.link:
            cmd += ["-H", args.hostfile + ".mpi"]
            env.update(OMPI_MCA_btl="tcp,self", OMPI_MCA_plm_rsh_agent=ssh, OMPI_MCA_oob_tcp_if_include="sim0",
                       OMPI_MCA_btl_tcp_if_include="sim0")
    else:  # the scheduler here, on the machines' bridge; server s and worker s on machine s
        cmd = [args.braid, "launch", "-n", str(workers), "-s", str(args.servers or workers)]
        if args.link:
            cmd += ["--launcher", "ssh", "-H", args.hostfile]
            env.update(BRAID_SSH=ssh, DMLC_INTERFACE="sim0", DMLC_PS_ROOT_URI="10.231.0.1")
    cmd += ["--"] + sim
    done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout[-3000:]}")
    with open(log) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    os.remove(log)
    return sum(r["efficiency"] for r in rows) / len(rows), rows[0]["bytes"]


def measure(args, stores, counts, curves, tmp):
    """Fills curves[store] with the efficiency for each worker count, and curves["_bytes"]."""
    for name in stores:
        store, compression = STORES[name]
        curves[name] = []
        for n in counts:
            eff, curves["_bytes"] = run(args, store, compression, n, os.path.join(tmp, "sim.json"))
            curves[name].append(eff)


def plot(path, counts, curves, title):
    data = path + ".dat"
    with open(data, "w") as f:
        for i, n in enumerate(counts):
            f.write(f"{n} " + " ".join(f"{curves[name][i]:.4f}" for name in curves) + "\n")
    lines = ", ".join(f"'{data}' using 1:{k + 2} with linespoints title '{name}'" for k, name in enumerate(curves))
    two_lines = title.replace("\n", "\\n")  # gnuplot's escape, in a double-quoted string
    script = (f"set terminal pngcairo noenhanced size 900,520 font ',10'; set output '{path}'; "
              f"set title \"{two_lines}\"; "
              f"set xlabel 'workers'; set ylabel 'weak-scaling efficiency'; set yrange [0:1.05]; "
              f"set key bottom left; set grid; plot {lines}")
    subprocess.run(["gnuplot", "-e", script], check=True, capture_output=True)
    os.remove(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--braid", default="build/bin/braid")
    ap.add_argument("--workers", default="1,2,4,8")
    ap.add_argument("--stores", default=",".join(STORES), help="of: " + ", ".join(STORES))
    ap.add_argument("--model", default="resnet50_v1")
    ap.add_argument("--step-ms", type=float, default=100.0)
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--servers", type=int, default=0, help="for dist_sync (0: one per worker, on its machine)")
    ap.add_argument("--keys-per-list", type=int, default=24,
                    help="parameter server: gradients per list pushpull (1: each on its own)")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--plot", help="write the curves to this PNG (gnuplot)")
    ap.add_argument("--link", help="each node's link rate, e.g. 25gbit (tc syntax; needs root)")
    ap.add_argument("--delay", default="", help="with --link: each link's one-way delay, e.g. 50us (needs sch_netem)")
    args = ap.parse_args()
    args.braid = os.path.abspath(args.braid)
    counts = [int(n) for n in args.workers.split(",")]
    stores = args.stores.split(",")
    curves = {}
    netns = os.path.join(HERE, "netns_cluster.sh")
    with tempfile.TemporaryDirectory() as tmp:
        if args.link:
            machines = max(args.servers, max(counts))  # server s and worker s share machine s
            args.hostfile = os.path.join(tmp, "hosts")
            with open(args.hostfile, "w") as f:
                f.write("".join(f"bsim-{h}\n" for h in range(1, machines + 1)))
            with open(args.hostfile + ".mpi", "w") as f:  # one rank per machine
                f.write("".join(f"bsim-{h} slots=1\n" for h in range(1, machines + 1)))
            subprocess.run([netns, "down"], check=True)
            subprocess.run([netns, "up", str(machines), args.link] + ([args.delay] if args.delay else []), check=True)
            shaped = subprocess.run(["tc", "qdisc", "show", "dev", "bsv-1"], capture_output=True, text=True).stdout
            if "netem" not in shaped:
                args.delay = ""  # the kernel has no sch_netem (netns_cluster.sh said so)
        try:
            measure(args, stores, counts, curves, tmp)
        finally:
            if args.link:
                subprocess.run([netns, "down"], check=True)
    size = curves.pop("_bytes")
    network = f"links of {args.link} {args.delay}".strip() if args.link else "loopback"
    title = (f"{args.model}: {size / 1e6:.1f} MB of gradients per worker and step (1/{args.scale}),\n"
             f"compute {args.step_ms:g} ms, {network}")
    servers = f"{args.servers} servers" if args.servers else "a server per worker"
    print(title.replace("\n", " ") + f"; dist_sync with {servers}; workers' mean efficiency")
    print("| workers | " + " | ".join(curves) + " |")
    print("|---" * (len(curves) + 1) + "|")
    for i, n in enumerate(counts):
        print(f"| {n} | " + " | ".join(f"{curves[name][i]:.3f}" for name in curves) + " |")
    if args.plot:
        if not shutil.which("gnuplot"):
            raise SystemExit("--plot needs gnuplot (apt install gnuplot-nox)")
        plot(os.path.abspath(args.plot), counts, curves, title)


if __name__ == "__main__":
    main()
