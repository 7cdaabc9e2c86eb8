"""The environment every benchmark process gets, and what is recorded about the machine.

OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are removed here, in the benchmark's own commands only
(bench/README.md): set, they can force OpenBLAS onto a slower kernel than the one it detects.
"""
import os
import platform
import subprocess

REMOVED = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
THREAD_VARIABLES = ("TENSORJIT_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS",
                    "MKL_NUM_THREADS", "NUMEXPR_MAX_THREADS")
RECORDED = REMOVED + THREAD_VARIABLES + ("VECTOR_BITS", "TENSORJIT_VECTOR_BITS", "TENSORJIT_CACHE_DIR",
                                         "TENSORJIT_LOG", "XLA_FLAGS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


def all_threads():
    return len(os.sched_getaffinity(0))


def for_threads(threads):
    """The environment of a worker that may use `threads` threads (each library told its own way)."""
    environment = {name: value for name, value in os.environ.items() if name not in REMOVED}
    environment.pop("TENSORJIT_CACHE_DIR", None)  # W10 sets its own; elsewhere a warm cache is no help
    for name in THREAD_VARIABLES:
        environment[name] = str(threads)
    if threads == 1:  # XLA sizes its pools from the cores it sees, not from the affinity mask
        environment["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    return environment


def command_output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def load_average():
    with open("/proc/loadavg") as file:
        return " ".join(file.read().split()[:3])


def cpu_kind():
    """A file name for the CPU kind: its model name and its family and model numbers from
    /proc/cpuinfo (a cloud's 'AMD EPYC' names several generations), e.g. amd-epyc-f25m1."""
    fields = {}
    with open("/proc/cpuinfo") as file:
        for line in file:
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "cpu family", "model") and key.strip() not in fields:
                fields[key.strip()] = value.strip()
            if not line.strip():
                break
    name = "".join(c if c.isalnum() else "-" for c in fields.get("model name", "cpu").lower())
    name = "-".join(part for part in name.split("-") if part)
    return f"{name}-f{fields.get('cpu family', '?')}m{fields.get('model', '?')}"


def machine():
    """What the JSON records about the machine the figures come from."""
    cpu = {}
    for line in command_output(["lscpu"]).splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("Model name", "CPU(s)", "Thread(s) per core", "L1d cache", "L2 cache", "L3 cache",
                           "CPU max MHz"):
            cpu[key.strip()] = value.strip()
    flags = open("/proc/cpuinfo").read()
    with open("/proc/meminfo") as file:
        memory = file.readline().split()[1]
    return {
        "cpu": cpu,
        "cpu_kind": cpu_kind(),
        "isa": [isa for isa in ("avx2", "fma", "avx512f", "avx512bw", "avx512_bf16") if f" {isa}" in flags],
        "cores_usable": all_threads(),
        "memory_kib": int(memory),
        "kernel": platform.release(),
        "os": command_output(["sh", "-c", ". /etc/os-release && echo $PRETTY_NAME"]),
        "compiler": command_output(["g++", "--version"]).splitlines()[0] if command_output(["g++", "--version"]) else "",
    }


def recorded_environment():
    return {name: os.environ.get(name) for name in RECORDED}
