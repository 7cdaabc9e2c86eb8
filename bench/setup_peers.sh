#!/usr/bin/env bash
# Optional: the pip peers of the benchmark driver (numexpr, JAX, PyTorch, ONNX Runtime) in a virtual environment,
# bench/.venv, which bench/run.py uses when it exists. The core set-up (scripts/setup.sh) never
# needs it. Each peer is installed on its own, so one that fails (PyPI unreachable, PyTorch's CUDA
# wheels too large for the disk) leaves the others usable; run.py reports a missing one as absent.
#
#   bash bench/setup_peers.sh            # numexpr, JAX, PyTorch (with transformers) and ONNX Runtime
#   bash bench/setup_peers.sh numexpr jax
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=$root/bench/.venv
peers=("$@")
[ ${#peers[@]} -eq 0 ] && peers=(numexpr jax torch onnxruntime)

# Debian's python3, not a pyenv one on PATH: the venv must outlive shell set-ups.
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv "$venv" || {
    echo "setup_peers: /usr/bin/python3 -m venv failed; install Debian's python3-venv (as root: apt-get install python3-venv)" >&2
    exit 1
  }
  "$venv/bin/python" -m pip install --quiet --upgrade pip
fi

status=0
for peer in "${peers[@]}"; do
  echo "setup_peers: installing $peer into $venv"
  case "$peer" in
    # PyPI's torch wheel pulls its CUDA libraries (several GB) even on a CPU-only machine.
    # transformers: BertModel for W16 and the model tests' reference (examples/minilm/reference.py).
    torch) packages=(torch transformers) ;;
    jax) packages=("jax[cpu]") ;;
    # onnx: torch.onnx's exporter, which W16's ONNX Runtime case runs; transformers: the model exported.
    onnxruntime) packages=(onnxruntime onnx torch transformers) ;;
    *) packages=("$peer") ;;
  esac
  if ! "$venv/bin/python" -m pip install --quiet "${packages[@]}"; then
    echo "setup_peers: $peer could not be installed; bench/run.py will report it absent" >&2
    status=1
  fi
done
"$venv/bin/python" -m pip list 2>/dev/null | grep -Ei '^(numpy|numexpr|jax|jaxlib|torch|transformers|onnx|onnxruntime) '
exit $status
