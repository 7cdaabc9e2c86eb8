"""A Python peer as a benchmark worker: worker_loop.hpp's line protocol on stdin/stdout.

    python python_worker.py --peer numpy|numexpr|jax|torch|torch-compile|onnxruntime --threads N

Exits with status 3 and the reason on stderr when the peer's package cannot be imported, which
the driver reports as absent.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from python_peers import PEERS, Unsupported  # noqa: E402


def serve(prepare, info):
    run = None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        try:
            if command == "quit":
                break
            if command == "info":
                reply(info)
            elif command == "prepare":
                run = None
                workload, dtype, dims, path = words[1], words[2], [int(w) for w in words[3:-1]], words[-1]
                try:
                    run, to_arrays = prepare(workload, {"f32": "float32", "f64": "float64"}[dtype], dims)
                except Unsupported as why:
                    reply(f"unsupported {why}")
                    continue
                with open(path, "wb") as file:
                    for array in to_arrays(run()):
                        array.astype(array.dtype, order="C", copy=False).tofile(file)
                reply("ok")
            elif command == "time":
                if run is None:
                    raise RuntimeError("time before a successful prepare")
                minimum = float(words[1])
                calls, start = 0, time.perf_counter()
                while True:
                    run()
                    calls += 1
                    elapsed = time.perf_counter() - start
                    if elapsed >= minimum:
                        break
                reply(f"{elapsed / calls:.9g} {calls}")
            elif command == "release":
                run = None
                reply("ok")
            else:
                reply(f"error unknown command {command}")
        except Exception as error:  # the driver shows the message and goes on without this case
            run = None
            reply("error " + " ".join(f"{type(error).__name__}: {error}".split()))


def reply(text):
    print(text, flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer", required=True, choices=sorted(PEERS))
    parser.add_argument("--threads", type=int, default=1)
    arguments = parser.parse_args()
    try:
        prepare, info = PEERS[arguments.peer](arguments.threads)
    except ImportError as error:
        print(f"absent: {error}", file=sys.stderr)
        sys.exit(3)
    serve(prepare, info)


if __name__ == "__main__":
    main()
