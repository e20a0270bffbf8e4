"""stepstat on a Dask cluster: `stepstat ranks` with the traces summarized by Dask workers.

    python3 -m stepstat.dask PATH... (--local N | --scheduler-file F | --scheduler ADDR) -o job.json

Paths and the policy's text travel to the workers, never trace bytes: every worker must see
the traces at the same paths (a shared file system; a relative path is resolved in each
worker's own working folder) and run the same stepstat version. Each
worker returns its trace's exact partial; the partials merge here as they complete, and the
output is byte for byte what `stepstat ranks PATH... --format json` writes. Only stable Dask
API is used (Client, map, as_completed), so Debian's 2022.12 and newer clusters both work.
A local cluster (--local N) binds its scheduler, workers and dashboards to 127.0.0.1 only.

Exit codes as the CLI's: 0 ok; 2 bad usage or input (a trace that failed is in errors[] and
on stderr, the job is still written).
"""

import argparse
import json
import os
import sys
import tempfile

import stepstat
from stepstat import _stepstat


MERGE_BATCH = 256


def summarize_partial(path, policy, policy_text, rank_regex, per_device=False):
    """The task a worker runs: ("ok", path, partial JSON) or ("error", path, message)."""
    import stepstat as worker_stepstat  # the worker's own installation

    try:
        if policy_text is None:
            return ("ok", path, worker_stepstat.partial(path, policy=policy,
                                                        rank_regex=rank_regex,
                                                        per_device=per_device).text)
        # The policy came as text: a file of the same name, so messages name it as the CLI.
        with tempfile.TemporaryDirectory(prefix="stepstat-policy-") as folder:
            policy_file = os.path.join(folder, os.path.basename(policy))
            with open(policy_file, "w", encoding="utf-8") as f:
                f.write(policy_text)
            return ("ok", path, worker_stepstat.partial(path, policy=policy_file,
                                                        rank_regex=rank_regex,
                                                        per_device=per_device).text)
    except worker_stepstat.Error as error:
        return ("error", path, str(error))


def run_job(client, paths, policy="", rank_regex="", per_device=False):
    """Maps every trace of `paths` to the workers and merges their partials as they come.
    Returns the stepstat.ranks/1 JSON text and the number of traces that failed."""
    from distributed import as_completed

    traces = _stepstat.list_traces(paths)
    policy_text = None
    if policy and os.path.isfile(policy):  # else a built-in name, known to every worker
        with open(policy, encoding="utf-8") as f:
            policy_text = f.read()
    futures = client.map(summarize_partial, traces, policy=policy, policy_text=policy_text,
                         rank_regex=rank_regex, per_device=per_device, pure=False)
    # Partials merge in batches as they arrive: each merge re-reads the job so far, so one
    # merge per trace would cost the square of the job's size.
    job = None
    pending = []
    errors = []
    for future in as_completed(futures):
        status, path, payload = future.result()
        if status == "error":
            errors.append((path, payload))
            continue
        pending.append(stepstat.Partial(payload, path))
        if len(pending) >= MERGE_BATCH:
            job = stepstat.merge_partials(([job] if job else []) + pending)
            pending = []
    parts = ([job] if job else []) + pending
    texts = [p.text for p in parts]
    names = [p.name for p in parts]
    return _stepstat.finish(texts, names, errors), len(errors)


def write_atomically(path, text):
    if path == "-":
        sys.stdout.write(text)
        return
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(prefix=".stepstat-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def local_cluster(workers):
    from distributed import LocalCluster

    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                        host="127.0.0.1", dashboard_address="127.0.0.1:0",
                        worker_dashboard_address="127.0.0.1:0")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m stepstat.dask",
        description="stepstat ranks on a Dask cluster: the same bytes as `stepstat ranks`.")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="traces, nsys bases or directories, as `stepstat ranks` takes them")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--local", type=int, metavar="N",
                       help="start a local cluster of N worker processes on 127.0.0.1")
    where.add_argument("--scheduler-file", metavar="F", help="the scheduler's JSON file")
    where.add_argument("--scheduler", metavar="ADDR", help="the scheduler, tcp://HOST:PORT")
    parser.add_argument("-o", "--output", default="-", help="write the job's JSON here")
    parser.add_argument("--policy", default="", help="a policy TOML file or built-in name")
    parser.add_argument("--rank-regex", default="", help="as `stepstat ranks --rank-regex`")
    parser.add_argument("--per-device", action="store_true",
                        help="as `stepstat ranks --per-device`: one row per GPU of a trace")
    args = parser.parse_args(argv)

    from distributed import Client

    cluster = None
    try:
        if args.local is not None:
            if args.local < 1:
                parser.error("--local needs at least 1 worker")
            cluster = local_cluster(args.local)
            client = Client(cluster)
        elif args.scheduler_file:
            client = Client(scheduler_file=args.scheduler_file)
        else:
            client = Client(args.scheduler)
        with client:
            text, failed = run_job(client, args.paths, args.policy, args.rank_regex,
                                   args.per_device)
    except stepstat.Error as error:
        print(f"stepstat: {error}", file=sys.stderr)
        return 2
    finally:
        if cluster is not None:
            cluster.close()
    write_atomically(args.output, text)
    if failed:
        for entry in json.loads(text)["errors"]:
            print(f"stepstat: {entry['message']}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
