"""deploy/: the Kubeflow manifests (an MXJob for the parameter server, an MPIJob for allreduce) have
the structure and variables the operators and Braid need, every braid option they use exists, and
the Dockerfile's runtime image installs the Debian package of every library braid links."""
import os
import re
import shlex
import subprocess

import braid
import yaml

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(braid.__file__))))
BRAID = os.path.join(BUILD, "bin", "braid")
BASE_IMAGE_PACKAGES = {"libc6", "libstdc++6", "libgcc-s1"}  # in debian:12 itself


def _manifest(name):
    with open(os.path.join(SOURCE, "deploy", "kubernetes", name)) as f:
        return yaml.safe_load(f)


def _containers(replica):
    return replica["template"]["spec"]["containers"]


def _braid_options_exist(command):
    """Every --option of a `braid SUB ...` command appears in `braid SUB --help`."""
    at = command.index("braid")
    sub = command[at + 1]
    helped = subprocess.run([BRAID, sub, "--help"], capture_output=True, text=True)
    assert helped.returncode == 0, helped.stderr
    for word in command[at + 2:]:
        if word.startswith("--"):
            assert re.search(r"(^|[ ,])%s\b" % re.escape(word), helped.stdout), (word, sub)


def test_the_mxjob_runs_braid_roles_with_the_operators_variables_and_a_mounted_secret():
    job = _manifest("mxjob-dist-sync.yaml")
    assert (job["apiVersion"], job["kind"]) == ("kubeflow.org/v1", "MXJob")
    replicas = job["spec"]["mxReplicaSpecs"]
    assert set(replicas) == {"Scheduler", "Server", "Worker"}
    assert replicas["Scheduler"]["replicas"] == 1
    for role, spec in replicas.items():
        assert spec["replicas"] >= 1
        (container,) = _containers(spec)
        assert container["name"] == "mxnet"  # the container the operator gives the DMLC_* variables
        assert any(p["name"] == "mxjob-port" for p in container["ports"])
        env = {e["name"]: e.get("value") for e in container["env"]}
        assert "BRAID_PS_SECRET" not in env  # the secret is never written into the manifest
        secret_file = env["BRAID_PS_SECRET_FILE"]
        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        (volume,) = [v for v in spec["template"]["spec"]["volumes"] if v["name"] == mounts[os.path.dirname(secret_file)]]
        assert volume["secret"]["defaultMode"] & 0o077 == 0  # Braid refuses a secret others can read
        command = container["command"]
        if role == "Worker":
            assert command[:2] == ["braid", "train"]
            assert command[command.index("--kvstore") + 1].startswith("dist_")
        else:
            assert command == ["braid", "server"]  # its role from DMLC_ROLE
        _braid_options_exist(command)


def test_the_mpijob_launches_one_rank_per_worker_slot():
    job = _manifest("mpijob-horovod.yaml")
    assert (job["apiVersion"], job["kind"]) == ("kubeflow.org/v2beta1", "MPIJob")
    spec = job["spec"]
    replicas = spec["mpiReplicaSpecs"]
    (launcher,) = _containers(replicas["Launcher"])
    command = launcher["command"]
    assert command[0] == "mpirun"
    assert int(command[command.index("-np") + 1]) == replicas["Worker"]["replicas"] * spec["slotsPerWorker"]
    assert command[command.index("--kvstore") + 1] == "horovod"
    _braid_options_exist(command)
    (worker,) = _containers(replicas["Worker"])
    assert worker["command"][0] == "/usr/sbin/sshd"  # mpirun reaches the workers over ssh


def _runtime_packages():
    """The packages the Dockerfile's last stage installs with apt-get."""
    with open(os.path.join(SOURCE, "deploy", "Dockerfile")) as f:
        last_stage = f.read().split("\nFROM ")[-1]
    words = shlex.split(last_stage.split("apt-get install", 1)[1].split("&&", 1)[0].replace("\\\n", " "))
    return {w for w in words if not w.startswith("-")}


def test_the_image_installs_every_library_braid_links():
    needed = re.findall(r"NEEDED\s+(\S+)", subprocess.run(["objdump", "-p", BRAID], capture_output=True,
                                                          text=True, check=True).stdout)
    packages = _runtime_packages()
    for soname in needed:
        if soname.startswith("ld-linux"):
            continue
        owners = subprocess.run(["dpkg", "-S", soname], capture_output=True, text=True).stdout
        found = {line.split(":")[0] for line in owners.splitlines()
                 if line.endswith("/" + soname) and "x86_64-linux-gnu" in line}
        assert found, "no Debian package holds %s" % soname
        assert found & (packages | BASE_IMAGE_PACKAGES), "%s (from %s) is not installed by deploy/Dockerfile" % (
            soname, found)


def test_the_image_builds_with_the_projects_own_dependency_script():
    with open(os.path.join(SOURCE, "deploy", "Dockerfile")) as f:
        text = f.read()
    assert text.count("FROM debian:12") == 2
    assert "scripts/install-deps.sh" in text
    assert "--target braid_cli braid_python" in text
