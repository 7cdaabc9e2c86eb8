"""The machine's limits, measured first (bench/README.md): STREAM triad bandwidth and the FMA peak,
1 thread (pinned to core 0) and all threads, by bench/limits' programs."""
import json
import os
import subprocess

from . import environment


def run_limit_program(build_dir, program, threads, arguments=()):
    command = [os.path.join(build_dir, "bench", "limits", program), *arguments]
    if threads == 1:
        command = ["taskset", "-c", "0"] + command
    result = subprocess.run(command, capture_output=True, text=True, env=environment.for_threads(threads),
                            timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"{program} failed: {result.stderr.strip()}")
    return json.loads(result.stdout)


def measure(build_dir, thread_counts, quick, log):
    """{threads: {"triad_gb_per_s", "f32_gflops", "f64_gflops", "vector_bits"}} for each count."""
    limits = {}
    megabytes = "128" if quick else "512"  # per array: 3 arrays, far beyond the 32 MiB L3 either way
    for threads in thread_counts:
        log(f"limits: STREAM triad and FMA peak, {threads} thread(s)")
        triad = run_limit_program(build_dir, "stream_triad", threads, [megabytes])
        peak = run_limit_program(build_dir, "fma_peak", threads)
        limits[threads] = {"triad_gb_per_s": triad["triad_gb_per_s"], "f32_gflops": peak["f32_gflops"],
                           "f64_gflops": peak["f64_gflops"], "vector_bits": peak["vector_bits"]}
        log(f"  triad {triad['triad_gb_per_s']:.1f} GB/s, FMA peak f32 {peak['f32_gflops']:.0f} GFLOP/s, "
            f"f64 {peak['f64_gflops']:.0f} GFLOP/s at {peak['vector_bits']} bits")
    return limits
