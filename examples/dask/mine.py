#!/usr/bin/python3
"""Mine JSONL logs on a Dask cluster with `tagcall parse --range`.

Each file is cut into byte ranges; each worker runs `tagcall parse FILE --range START:END` (a
record belongs to the range it starts in, so the ranges read each record once) and
`tagcall stats FILE --range START:END --json`. The driver writes the findings in file and range
order (the same bytes one `tagcall parse` process writes) and the stats merged by
`tagcall stats --merge`.

    /usr/bin/python3 examples/dask/mine.py logs/*.jsonl --parts 16 --out findings.ndjson \
        --stats stats.json [--scheduler tcp://host:8786] [--tagcall 'tagcall']
"""
import argparse
import json
import os
import shlex
import subprocess
import tempfile

from distributed import Client, LocalCluster


def run_tagcall(command, args):
    """Runs tagcall on a worker: its standard output, or an error with its standard error."""
    env = dict(os.environ)
    # Dask's workers set it; inherited, it nearly doubles tagcall's CPU time.
    env.pop("MALLOC_TRIM_THRESHOLD_", None)
    done = subprocess.run(command + args, capture_output=True, env=env, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"tagcall {' '.join(args)}: {done.stderr.decode(errors='replace')}")
    return done.stdout


def parse_range(command, path, start, end):
    return run_tagcall(command, ["parse", path, "--range", f"{start}:{end}", "--jobs", "1", "--no-progress"])


def stats_range(command, path, start, end):
    return run_tagcall(command, ["stats", path, "--range", f"{start}:{end}", "--json", "--jobs", "1", "--no-progress"])


def ranges(path, parts):
    size = os.path.getsize(path)
    bounds = [size * i // parts for i in range(parts)] + [size]
    return [(path, bounds[i], bounds[i + 1]) for i in range(parts)]


def main():
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("paths", nargs="+")
    options.add_argument("--parts", type=int, default=8, help="byte ranges per file")
    options.add_argument("--out", required=True, help="the findings, NDJSON")
    options.add_argument("--stats", help="the merged stats, JSON")
    options.add_argument("--scheduler", help="a scheduler's address (default: a local cluster)")
    options.add_argument("--workers", type=int, default=2, help="workers of the local cluster")
    options.add_argument("--tagcall", default="tagcall", help="the command that runs tagcall")
    args = options.parse_args()
    command = shlex.split(args.tagcall)

    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(host="127.0.0.1", n_workers=args.workers, threads_per_worker=1,
                               processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        work = [r for path in args.paths for r in ranges(path, args.parts)]
        paths, starts, ends = zip(*work)
        found = client.map(parse_range, [command] * len(work), paths, starts, ends, pure=False)
        counted = client.map(stats_range, [command] * len(work), paths, starts, ends, pure=False)
        with open(args.out, "wb") as out:
            for part in client.gather(found):
                out.write(part)
        if args.stats:
            with tempfile.TemporaryDirectory() as folder:
                files = []
                for i, part in enumerate(client.gather(counted)):
                    name = os.path.join(folder, f"part-{i}.json")
                    with open(name, "wb") as f:
                        f.write(part)
                    files.append(name)
                merged = subprocess.run(command + ["stats", "--merge", *files, "--json"],
                                        capture_output=True, check=True)
                with open(args.stats, "wb") as f:
                    f.write(merged.stdout)
    finally:
        client.close()
        if not args.scheduler:
            cluster.close()


if __name__ == "__main__":
    main()
