#!/usr/bin/python3
"""What a local Dask cluster costs beside the work (bench/dask.ts): starting it (the driver's
imports, the scheduler, two forked worker processes, as examples/dask/mine.py starts them), and
each task, from 1,000 tasks that do nothing mapped at once. Prints one JSON line: wall and CPU
seconds (the driver's and the workers') of the start, and milliseconds per task."""
import time

BEGAN = time.monotonic()

import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "dask"))

from distributed import Client  # noqa: E402
from mine import local_cluster  # noqa: E402

TASKS = 1000


def nothing(i):
    return i


def cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def main():
    cluster = local_cluster(2)
    client = Client(cluster)
    try:
        ready = time.monotonic()
        start_cpu = cpu() + sum(client.run(cpu).values())
        client.gather(client.map(nothing, range(TASKS), pure=False))
        done = time.monotonic()
        all_cpu = cpu() + sum(client.run(cpu).values())
    finally:
        client.close()
        cluster.close()
    print(json.dumps({
        "tasks": TASKS,
        "startSeconds": ready - BEGAN,
        "startCpuSeconds": start_cpu,
        "perTaskMs": 1000 * (done - ready) / TASKS,
        "perTaskCpuMs": 1000 * (all_cpu - start_cpu) / TASKS,
    }))


if __name__ == "__main__":
    main()
