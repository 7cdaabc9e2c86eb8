"""Measures the cases side by side: every peer's worker prepares the case (and writes its answer),
each answer is checked against tensorjit's, then the peers are timed alternating, one warm-up and
`rounds` measured samples each, the order rotated every round so no peer always runs first.

A sample is one `time` request: the worker repeats the computation until `min_seconds` passed and
reports seconds per call, so even the 8-element W11 gets a time far above the clock's resolution.

Contenders are kept apart. At one thread, where every worker is pinned to core 0, while one worker
takes a sample every other one is stopped (SIGSTOP, its threads with it), so no idle pool thread
spins on the measured core. With all threads the driver only waits 30 ms between peers, so the
previous peer's spinning threads go to sleep: a multi-threaded worker just resumed from SIGSTOP
ran its OpenMP loops 8-20x slower (bench/README.md). Before each sample of a
bandwidth-bound case a second loop worker, the bandwidth probe, times STREAM's triad, and the
figure is kept with the sample: a ratio between two contenders can be read against the bandwidth
the machine gave each of them.
"""
import os
import shutil
import tempfile
import time

import numpy as np

from . import environment
from .peers import BANDWIDTH_PROBE, PEERS, TENSORJIT
from .worker import WorkerGone, start_worker

NUMPY_DTYPES = {"f32": np.float32, "f64": np.float64}


def start_workers(build_dir, threads, quick, log):
    """{peer name: worker} for the peers that start; {peer name: reason} for those absent."""
    workers, absent, infos = {}, {}, {}
    for peer in PEERS:
        if quick and not peer.quick:
            absent[peer.name] = "not run by --quick (compiles each case for tens of seconds)"
            continue
        try:
            workers[peer.name], infos[peer.name] = start_worker(
                peer, build_dir, threads, environment.for_threads(threads), pin=threads == 1)
            log(f"  {peer.name}: {infos[peer.name]}")
        except WorkerGone as reason:
            absent[peer.name] = f"absent ({reason}); install: {peer.install_hint}"
            log(f"  {peer.name}: {absent[peer.name]}")
    return workers, absent, infos


# A case that moves at least this much per call is bandwidth-bound: its samples get a triad beside
# them. The probe's arrays (3 x 32 MiB) are beyond the last-level cache of the CPUs measured so far.
BANDWIDTH_BOUND_BYTES = 32 * 1024 * 1024
PROBE_DOUBLES = 4 * 1024 * 1024


class BandwidthProbe:
    """STREAM's triad on demand, from a loop_worker of its own kept stopped between samples."""

    def __init__(self, build_dir, threads, folder):
        self.worker, _ = start_worker(BANDWIDTH_PROBE, build_dir, threads, environment.for_threads(threads),
                                      pin=threads == 1)
        path = os.path.join(folder, "triad.bin")
        reply = self.worker.request(f"prepare triad f64 {PROBE_DOUBLES} {path}")
        if os.path.exists(path):
            os.remove(path)
        if reply != "ok":
            self.worker.close()
            raise WorkerGone(f"the triad case: {reply}")
        self.worker.pause()

    def gb_per_s(self):
        """The triad's bandwidth now (three arrays of PROBE_DOUBLES doubles a pass)."""
        self.worker.resume()
        try:
            seconds = float(self.worker.request("time 0.02").split()[0])
        finally:
            self.worker.pause()
        return 3 * 8 * PROBE_DOUBLES / seconds * 1e-9

    def close(self):
        self.worker.resume()
        self.worker.close()


def start_bandwidth_probe(build_dir, threads, log):
    """A BandwidthProbe, or None (said in the log) when the loop worker cannot serve it."""
    folder = tempfile.mkdtemp(prefix="tensorjit-probe-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        return BandwidthProbe(build_dir, threads, folder)
    except WorkerGone as reason:
        log(f"  bandwidth probe: absent ({reason}); bandwidth-bound figures are recorded without it")
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def relative_difference(reference, answer):
    if reference.shape != answer.shape:
        return float("inf")
    scale = float(np.max(np.abs(reference))) if reference.size else 0.0
    difference = float(np.max(np.abs(reference.astype(np.float64) - answer.astype(np.float64))))
    return difference / scale if scale > 0 else difference


def distribution_difference(reference, answer):
    """How far two random draws' mean and standard deviation are apart, in the reference's
    standard deviations."""
    if reference.shape != answer.shape:
        return float("inf")
    reference, answer = reference.astype(np.float64), answer.astype(np.float64)
    spread = float(reference.std()) or 1.0
    return max(abs(float(reference.mean() - answer.mean())), abs(float(reference.std() - answer.std()))) / spread


def prepare_and_check(case, workers, folder, log):
    """Prepares the case on every worker; returns {peer: record}, timed peers marked 'checked'."""
    records, answers = {}, {}
    request = f"prepare {case.workload} {case.dtype} {' '.join(map(str, case.dims))}"
    for name, worker in workers.items():
        path = os.path.join(folder, f"{len(answers)}.bin")
        try:
            reply = worker.request(f"{request} {path}")
        except WorkerGone as reason:
            records[name] = {"status": "error", "detail": str(reason)}
            continue
        status, _, detail = reply.partition(" ")
        if status == "ok":
            answers[name] = np.fromfile(path, dtype=NUMPY_DTYPES[case.dtype])
            os.remove(path)
            records[name] = {"status": "checked", "detail": ""}
        else:
            records[name] = {"status": status, "detail": detail}
            if status == "error":
                log(f"    {name}: error: {detail}")
    # tensorjit's answer is the reference; without one, the first peer's stands in (and says so).
    reference_name = TENSORJIT if TENSORJIT in answers else next(iter(answers), None)
    for name, answer in answers.items():
        compare = distribution_difference if case.check == "distribution" else relative_difference
        difference = compare(answers[reference_name], answer)
        records[name]["difference"] = difference
        records[name]["reference"] = reference_name
        if not difference <= case.tolerance:
            records[name]["status"] = "mismatch"
            records[name]["detail"] = (f"differs from {reference_name} by {difference:.3g} "
                                       f"(tolerance {case.tolerance:g}); not timed")
            log(f"    {name}: {records[name]['detail']}")
    return records


def time_case(case, workers, records, threads, rounds, min_seconds, log, label, probe):
    timed = [name for name in workers if records[name]["status"] == "checked"]
    stopped = workers if threads == 1 else {}  # the workers kept stopped between their samples
    beside_triad = probe is not None and case.bytes >= BANDWIDTH_BOUND_BYTES
    for name in timed:
        records[name].update(status="timed", samples=[], calls=[])
        if beside_triad:
            records[name]["triad_gb_per_s"] = []
    for worker in stopped.values():
        worker.pause()
    try:
        for round_index in range(-1, rounds):  # round -1 is the warm-up, not recorded
            order = timed[round_index % len(timed):] + timed[:round_index % len(timed)] if timed else []
            progress = "warm-up" if round_index < 0 else f"round {round_index + 1}/{rounds}"
            log(f"  {label} · {progress} · {', '.join(order)}", transient=True)
            for name in order:
                if records[name]["status"] != "timed":
                    continue
                triad = probe.gb_per_s() if beside_triad else None
                if name in stopped:
                    workers[name].resume()
                elif threads > 1:
                    time.sleep(0.03)  # let the previous peer's spinning threads go to sleep
                try:
                    seconds, calls = workers[name].request(f"time {min_seconds}").split()
                except (WorkerGone, ValueError) as reason:
                    records[name].update(status="error", detail=f"while timing: {reason}")
                    continue
                finally:
                    if name in stopped:
                        workers[name].pause()
                if round_index >= 0:
                    records[name]["samples"].append(float(seconds))
                    records[name]["calls"].append(int(calls))
                    if triad is not None:
                        records[name]["triad_gb_per_s"].append(triad)
    finally:
        for worker in stopped.values():
            worker.resume()


def restart_dead_workers(workers, build_dir, threads, log):
    """A worker that crashed on one case (a bug being fixed) is started again for the next."""
    peers = {peer.name: peer for peer in PEERS}
    for name, worker in list(workers.items()):
        if worker.process.poll() is None:
            continue
        worker.close()
        try:
            workers[name], _ = start_worker(peers[name], build_dir, threads, environment.for_threads(threads),
                                            pin=threads == 1)
            log(f"  {name}: its worker had exited; started again")
        except WorkerGone as reason:
            log(f"  {name}: its worker had exited and does not start again: {reason}")


def measure_cases(cases, workers, build_dir, threads, rounds, min_seconds, log, probe=None):
    """A list of {case, threads, peers: {name: record}} in the order of `cases`; `probe`, a
    BandwidthProbe, puts the triad beside each sample of the bandwidth-bound ones."""
    results = []
    folder = tempfile.mkdtemp(prefix="tensorjit-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        for index, case in enumerate(cases):
            label = f"[{index + 1}/{len(cases)}] {case.title} · {threads} thread(s)"
            log(f"{label}: preparing and checking")
            restart_dead_workers(workers, build_dir, threads, log)
            records = prepare_and_check(case, workers, folder, log)
            time_case(case, workers, records, threads, rounds, min_seconds, log, label, probe)
            for worker in workers.values():
                try:
                    worker.request("release")
                except WorkerGone:
                    pass
            summary = ", ".join(f"{name} {np.median(r['samples']) * 1e3:.3g} ms"
                                for name, r in records.items() if r.get("samples"))
            log(f"{label}: {summary}")
            results.append({"case": case, "threads": threads, "peers": records})
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return results
