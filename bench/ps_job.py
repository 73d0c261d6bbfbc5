"""What the parameter-server benches share: running a Python worker script as every worker of a
`braid launch -n N -s S` job on this machine, one thread per process."""
import os
import subprocess
import sys
import tempfile


def launch(braid, workers, script_text, servers=1, timeout=600):
    """Runs `script_text` under `braid launch -n workers -s servers`; returns the job's output."""
    python_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(braid))), "python")
    env = dict(os.environ, PYTHONPATH=python_dir, OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "worker.py")
        with open(script, "w") as f:
            f.write(script_text)
        return subprocess.run([braid, "launch", "-n", str(workers), "-s", str(servers), "--", sys.executable, script],
                              env=env, capture_output=True, text=True, timeout=timeout, check=True).stdout
