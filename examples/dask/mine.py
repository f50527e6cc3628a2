#!/usr/bin/python3
"""Mine transcripts on a Dask cluster: one `tagcall parse` pass a task, parts on shared storage.

The inputs (files, or folders walked in byte order as `tagcall` walks them) are cut into tasks
of about --task-mb MB each: a large JSONL log into byte ranges (`--range START:END`: a record
belongs to the range it starts in), small files into batches (one `tagcall` process reads a
whole batch, `--files-from -`). Each task runs one `tagcall parse … --out PART --stats-out
PART.stats.json` and hands back only where its part is and how big; the findings never travel
through Dask. The driver then writes PARTS/manifest.json (the parts in order), the stats merged
by `tagcall stats --merge`, and, with --out, the parts concatenated: the same bytes one
`tagcall parse --jobs 1` process writes.

    /usr/bin/python3 examples/dask/mine.py logs/ --parts /shared/run-1 --out findings.ndjson \\
        --stats stats.json [--scheduler tcp://host:8786] [--tagcall 'tagcall'] [-- --dialect auto]

PARTS is a folder every worker and the driver see (a shared filesystem), or an fsspec URL
(s3://bucket/run-1, gs://…: each worker writes its part to a local temporary file and uploads
it; the driver reads the small stats parts back, and the findings parts only for --out).
"""
import argparse
import json
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import dask
import fsspec
from distributed import Client, LocalCluster
from fsspec.implementations.local import LocalFileSystem

MIB = 1 << 20
# Settings of a local cluster: its cost is the driver's and its workers' CPU beside tagcall's.
LOCAL_CLUSTER = {
    # Workers forked from the driver, which has imported distributed: a spawned worker imports
    # it again (0.45 CPU s each here).
    "distributed.worker.multiprocessing-method": "fork",
    # The profiler samples each worker's thread every 10 ms; the work is in a tagcall process.
    "distributed.worker.profile.enabled": False,
    # Timers that wake every process many times a second cost CPU all run long: with them,
    # an idle local cluster took 58 CPU ms a second, without 10. They watch the event loop
    # (20 ms), balance the tasks (100 ms), the memory (100 ms) and the machine (500 ms), for
    # tasks that each run a tagcall process for seconds.
    "distributed.admin.tick.interval": "1s",
    "distributed.scheduler.work-stealing-interval": "1s",
    "distributed.worker.memory.monitor-interval": "5s",
    "distributed.admin.system-monitor.interval": "5s",
}
# A part's name sorts in task order: part-00000.ndjson, part-00000.stats.json, …
PART = "part-{:05d}"


def local_cluster(workers):
    """A cluster on 127.0.0.1: `workers` processes of one thread (a task is a tagcall process
    using one core), no dashboard (its HTTP server on a free port, not 8787)."""
    dask.config.set(LOCAL_CLUSTER)
    return LocalCluster(host="127.0.0.1", n_workers=workers, threads_per_worker=1,
                        processes=True, dashboard_address=None,
                        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})


def walk(source):
    """(path, size) of each file under `source` in tagcall's order: entries sorted by the bytes
    of their names, folders entered where they sort, symbolic links inside folders skipped
    (src/cli/mine.ts, collectFiles); a path joined as Node's path.join joins it."""
    if not os.path.isdir(source):
        yield source, os.stat(source).st_size
        return
    entries = sorted(os.scandir(source), key=lambda e: os.fsencode(e.name))
    for entry in entries:
        path = os.path.normpath(os.path.join(source, entry.name))
        if entry.is_dir(follow_symlinks=False):
            yield from walk(path)
        elif entry.is_file(follow_symlinks=False):
            yield path, entry.stat(follow_symlinks=False).st_size


def reject_constant(name):
    raise ValueError(name)


def is_jsonl(path):
    """Whether the file's first line (within 1 MiB) is a JSON record: tagcall's test before it
    reads a byte range (layoutOf in src/transcripts/scan.ts)."""
    with open(path, "rb") as f:
        head = f.read(MIB)
    line = head.split(b"\n", 1)[0]
    if line.strip()[:1] not in (b"{", b"["):
        return False
    try:
        json.loads(line, parse_constant=reject_constant)
        return True
    except ValueError:
        return False


def plan(sources, task_bytes):
    """The tasks in output order: ("range", path, start, end) for a piece of a large JSONL log,
    ("files", [paths]) for a batch of files read whole."""
    tasks, batch, batch_bytes = [], [], 0
    for source in sources:
        for path, size in walk(source):
            large = size > task_bytes and is_jsonl(path)
            if large or "\n" in path:
                if batch:
                    tasks.append(("files", batch))
                    batch, batch_bytes = [], 0
                if not large:
                    # A batch goes to tagcall one path a line: this one is given alone.
                    tasks.append(("files", [path]))
                    continue
                parts = -(-size // task_bytes)
                bounds = [size * i // parts for i in range(parts)] + [size]
                tasks += [("range", path, bounds[i], bounds[i + 1]) for i in range(parts)]
                continue
            batch.append(path)
            batch_bytes += size
            if batch_bytes >= task_bytes:
                tasks.append(("files", batch))
                batch, batch_bytes = [], 0
    if batch:
        tasks.append(("files", batch))
    return tasks


def run_task(command, options, task, parts, index):
    """On a worker: one `tagcall parse` over the task, its findings and stats written as part
    `index` under `parts`. Returns where they are, how big, and the CPU seconds tagcall used."""
    fs, root = fsspec.core.url_to_fs(parts)
    local = isinstance(fs, LocalFileSystem)
    folder = root if local else tempfile.mkdtemp(prefix="tagcall-part-")
    name = PART.format(index)
    findings = os.path.join(folder, name + ".ndjson")
    stats = os.path.join(folder, name + ".stats.json")
    args = ["parse", "--jobs", "1", "--no-progress", "--out", findings, "--stats-out", stats]
    if task[0] == "range":
        _, path, start, end = task
        args += [path, "--range", f"{start}:{end}"]
        stdin = None
    elif len(task[1]) == 1 and "\n" in task[1][0]:
        args.append(task[1][0])
        stdin = None
    else:
        args += ["--files-from", "-"]
        stdin = "".join(path + "\n" for path in task[1]).encode()
    env = dict(os.environ)
    # Dask's workers set it; inherited, it nearly doubles tagcall's CPU time.
    env.pop("MALLOC_TRIM_THRESHOLD_", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(command + args + options, input=stdin, capture_output=True,
                              env=env, timeout=24 * 3600)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise RuntimeError(f"a task failed: tagcall {' '.join(args + options)}: "
                               f"{done.stderr.decode(errors='replace').strip()}")
        size = os.path.getsize(findings)
        if not local:
            for path in (findings, stats):
                fs.put_file(path, f"{root}/{os.path.basename(path)}")
    finally:
        if not local:
            shutil.rmtree(folder, ignore_errors=True)
    url = parts.rstrip("/")
    return {
        "findings": f"{url}/{name}.ndjson",
        "stats": f"{url}/{name}.stats.json",
        "bytes": size,
        "tagcall_cpu_seconds": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
    }


def process_cpu():
    """CPU seconds of this process (its tagcall children apart)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def concatenate(parts, out):
    """The findings parts, in order, into `out` (in the kernel where both are local files)."""
    with open(out, "wb") as target:
        for part in parts:
            fs, path = fsspec.core.url_to_fs(part["findings"])
            with fs.open(path, "rb") as source:
                if isinstance(fs, LocalFileSystem):
                    offset = 0
                    while offset < part["bytes"]:
                        copied = os.copy_file_range(source.fileno(), target.fileno(),
                                                    part["bytes"] - offset, offset)
                        if copied == 0:
                            raise RuntimeError(f"{path}: {offset} bytes, its task wrote "
                                               f"{part['bytes']}")
                        offset += copied
                else:
                    shutil.copyfileobj(source, target, 8 * MIB)


def merge_stats(command, parts, out):
    """`tagcall stats --merge` of the stats parts (fetched to a temporary folder if remote)."""
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for i, part in enumerate(parts):
            fs, path = fsspec.core.url_to_fs(part["stats"])
            if isinstance(fs, LocalFileSystem):
                files.append(path)
            else:
                files.append(os.path.join(folder, f"{i}.json"))
                fs.get_file(path, files[-1])
        merged = subprocess.run(command + ["stats", "--merge", *files, "--json"],
                                capture_output=True)
        if merged.returncode != 0:
            raise RuntimeError(f"tagcall stats --merge: {merged.stderr.decode(errors='replace')}")
        with fsspec.open(out, "wb") as f:
            f.write(merged.stdout)


def main():
    argv = sys.argv[1:]
    options = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", help="JSONL logs, transcripts, folders of them")
    parser.add_argument("--parts", help="where the parts, their manifest and the stats go: a "
                        "shared folder or an fsspec URL (default, on a local cluster with --out: "
                        "a temporary folder, removed at the end)")
    parser.add_argument("--out", help="the parts' findings concatenated, NDJSON")
    parser.add_argument("--stats", help="the merged stats, JSON (default: PARTS/stats.json)")
    parser.add_argument("--task-mb", type=float, help="MB of input a task reads (default: the "
                        "input over the workers' threads, 1 to 1024): each task starts a tagcall "
                        "process, so fewer, larger tasks cost less CPU")
    parser.add_argument("--scheduler", help="a scheduler's address (default: a local cluster)")
    parser.add_argument("--workers", type=int, default=2, help="workers of the local cluster")
    parser.add_argument("--tagcall", default="tagcall", help="the command that runs tagcall")
    parser.add_argument("--report", help="a JSON file: tasks, seconds and CPU seconds by process")
    args = parser.parse_args(argv)
    for path in args.paths:
        if not os.path.exists(path):
            parser.error(f"{path}: no such file or folder")
    if args.parts is None and (args.scheduler or not args.out):
        parser.error("--parts: a folder or URL the workers share (needed with --scheduler, or "
                     "without --out: the parts and their manifest are the output)")
    command = shlex.split(args.tagcall)
    started = time.monotonic()

    if args.scheduler:
        client = Client(args.scheduler)
        cluster = None
    else:
        cluster = local_cluster(args.workers)
        client = Client(cluster)
    temporary = None
    try:
        parts = args.parts
        if parts is None:
            parts = temporary = tempfile.mkdtemp(prefix="tagcall-parts-")
        fs, root = fsspec.core.url_to_fs(parts)
        fs.makedirs(root, exist_ok=True)
        total = sum(size for source in args.paths for _, size in walk(source))
        workers = max(1, sum(client.nthreads().values()))
        task_bytes = (int(args.task_mb * 1e6) if args.task_mb
                      else min(1024 * MIB, max(MIB, -(-total // workers))))
        tasks = plan(args.paths, task_bytes)
        futures = client.map(run_task, [command] * len(tasks), [options] * len(tasks), tasks,
                             [parts] * len(tasks), range(len(tasks)), pure=False)
        try:
            done = client.gather(futures)
        except RuntimeError as error:
            raise SystemExit(f"mine.py: {error}") from None
        stats = args.stats or (None if temporary else f"{parts.rstrip('/')}/stats.json")
        # The copy runs in the kernel while tagcall merges the stats.
        with ThreadPoolExecutor(1) as copier:
            copied = copier.submit(concatenate, done, args.out) if args.out else None
            if stats:
                merge_stats(command, done, stats)
            if copied is not None:
                copied.result()
        if not temporary:
            manifest = {
                "parts": [{"findings": p["findings"], "stats": p["stats"], "bytes": p["bytes"]}
                          for p in done],
                "stats": stats,
            }
            with fsspec.open(f"{parts.rstrip('/')}/manifest.json", "w") as f:
                json.dump(manifest, f, indent=2)
        if args.report:
            workers_cpu = client.run(process_cpu)
            report = {
                "tasks": len(tasks),
                "task_bytes": task_bytes,
                "seconds": time.monotonic() - started,
                "cpu_seconds": {
                    "driver": process_cpu(),
                    "workers": sum(workers_cpu.values()),
                    "tagcall": sum(p["tagcall_cpu_seconds"] for p in done),
                },
            }
            with open(args.report, "w") as f:
                json.dump(report, f, indent=2)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)


if __name__ == "__main__":
    main()
