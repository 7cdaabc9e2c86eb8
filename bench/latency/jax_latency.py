"""W10's peer: JAX's latency for W1 in a fresh process, as w10_latency measures tensorjit's.

The first call of the jitted function traces, compiles and runs it (or, with a warm persistent
compilation cache in JAX_CACHE_DIR, loads the executable from disk); the second call hits JAX's
in-memory cache. Prints one JSON line with the same keys as w10_latency.

    python jax_latency.py [elements, default 65536]
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from bench_inputs import make_input  # noqa: E402


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 65536
    if os.environ.get("JAX_CACHE_DIR"):
        jax.config.update("jax_compilation_cache_dir", os.environ["JAX_CACHE_DIR"])
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    a, b, c = (jnp.asarray(make_input(stream, (count,), "float32")) for stream in (1, 2, 3))
    w1 = jax.jit(lambda a, b, c: jnp.maximum(a * b + c, 0) * 0.5)
    start = time.perf_counter()
    w1(a, b, c).block_until_ready()
    first = time.perf_counter() - start
    start = time.perf_counter()
    w1(a, b, c).block_until_ready()
    second = time.perf_counter() - start
    start = time.perf_counter()
    w1(a, b, c).block_until_ready()
    third = time.perf_counter() - start
    print(json.dumps({"first_eval_s": first, "second_eval_s": second, "third_eval_s": third}))


if __name__ == "__main__":
    main()
