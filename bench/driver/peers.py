"""The peers of bench/README.md, how each worker process is started, and how to install a missing one.

Every peer runs as its own worker process speaking worker_loop.hpp's protocol. A peer whose
program, package or library is missing is reported absent with its install hint, never dropped.
"""
import os
import subprocess
from dataclasses import dataclass

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(BENCH, ".venv", "bin", "python")
DEBIAN_PYTHON = "/usr/bin/python3"
PYTHON_WORKER = os.path.join(BENCH, "peers", "python_worker.py")
SETUP_PEERS = "bash bench/setup_peers.sh"


@dataclass(frozen=True)
class Peer:
    name: str
    program: str        # a build target (C++) or a python interpreter
    arguments: tuple    # after the program; "{threads}" is replaced
    install_hint: str
    quick: bool = True  # run by --quick (torch.compile's compile per case is too slow for it)

    def command(self, build_dir, threads):
        program = self.program
        if not program.startswith("/"):
            program = os.path.join(build_dir, "bench", program)
        return [program] + [argument.replace("{threads}", str(threads)) for argument in self.arguments]


def python_peer(name, package, interpreter, install_hint, quick=True):
    return Peer(name, interpreter, (PYTHON_WORKER, "--peer", package, "--threads", "{threads}"), install_hint, quick)


def library_peer(name, library, install_hint):
    return Peer(name, "peers/library_worker", ("--peer", library, "--threads", "{threads}"), install_hint)


TENSORJIT = "tensorjit"

PEERS = [
    Peer(TENSORJIT, "peers/tensorjit_worker", (), "bash scripts/setup.sh build"),
    Peer("C++ loop", "peers/loop_worker", (), "g++ with OpenMP (Debian's g++)"),
    python_peer("NumPy", "numpy", DEBIAN_PYTHON, "apt-get install python3-numpy"),
    python_peer("NumPy (venv)", "numpy-sort", VENV_PYTHON, SETUP_PEERS + " numpy"),
    python_peer("numexpr", "numexpr", VENV_PYTHON, SETUP_PEERS + " numexpr"),
    python_peer("JAX", "jax", VENV_PYTHON, SETUP_PEERS + " jax"),
    python_peer("PyTorch", "torch", VENV_PYTHON, SETUP_PEERS + " torch"),
    python_peer("torch.compile", "torch-compile", VENV_PYTHON, SETUP_PEERS + " torch", quick=False),
    python_peer("ONNX Runtime", "onnxruntime", VENV_PYTHON, SETUP_PEERS + " onnxruntime"),
    library_peer("OpenBLAS", "openblas", "apt-get install libopenblas-dev"),
    library_peer("BLIS", "blis", "apt-get install libblis-dev"),
    library_peer("oneDNN", "onednn", "apt-get install libdnnl-dev, then reconfigure the build"),
    library_peer("Eigen", "eigen", "apt-get install libeigen3-dev, then reconfigure the build"),
]

def baseline_peer(build_dir):
    """tensorjit as another configured build folder has it (another checkout, at another commit),
    as one more peer, named after that commit: `run.py --baseline DIR` measures two commits side
    by side, alternating, in one run. Its worker speaks the same protocol (peers/worker_loop.hpp);
    a case it does not know is reported as its error."""
    build_dir = os.path.abspath(build_dir)
    source = None
    with open(os.path.join(build_dir, "CMakeCache.txt")) as cache:
        for line in cache:
            if line.startswith("CMAKE_HOME_DIRECTORY:INTERNAL="):
                source = line.split("=", 1)[1].strip()
    commit = subprocess.run(["git", "-C", source or build_dir, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown commit"
    return Peer(f"{TENSORJIT} {commit}", os.path.join(build_dir, "bench", "peers", "tensorjit_worker"), (),
                f"cmake --build {build_dir} --target tensorjit_worker")


# Not a contender: a second loop worker that times STREAM's triad beside the samples of the
# bandwidth-bound cases (measure.py).
BANDWIDTH_PROBE = Peer("bandwidth probe", "peers/loop_worker", (), "g++ with OpenMP (Debian's g++)")

# The programs run.py builds: `cmake --build <dir> --target` these, nothing else.
BUILD_TARGETS = ["tensorjit_worker", "loop_worker", "library_worker", "stream_triad", "fma_peak", "w10_latency",
                 "w17_naive_loop", "named_temporaries", "storage_floats", "load_safetensors"]


def names():
    return [peer.name for peer in PEERS]
