"""bench/run.py's parts: workloads, peers, workers, limits, latency, the report and the chart."""
