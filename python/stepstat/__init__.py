"""stepstat from Python: the engine of the `stepstat` CLI, without a subprocess.

Every function returns exactly what the CLI prints, parsed (dicts keep the CLI's key order):

    import stepstat
    summary = stepstat.summarize("run")                 # run_cuda_gpu_trace.csv (+ kern exec)
    summary["components"]["attention"]["milliseconds"]
    steps = stepstat.steps("run.sqlite", steps="denoise")
    steps.to_pandas()                                   # one row per step (needs pandas)
    parts = [stepstat.partial(p) for p in ("rank0", "rank1")]   # picklable, exact integers
    job = stepstat.merge(parts)                         # what `stepstat ranks` prints

Errors raise stepstat.Error with the CLI's message ("<file>:<line>: <what>"). The GIL is
released while files are read, so threads summarize in parallel.
"""

import json
import os
import warnings as _warnings

from . import _stepstat

Error = _stepstat.Error
PARTIAL_SCHEMA = _stepstat.PARTIAL_SCHEMA
RANKS_SCHEMA = _stepstat.RANKS_SCHEMA

__all__ = ["Error", "Partial", "Steps", "summarize", "steps", "report", "partial", "merge", "ranks",
           "PARTIAL_SCHEMA", "RANKS_SCHEMA"]


def _paths(inputs):
    """The paths of f("a", "b") or of f(["a", "b"]): both mean the same inputs."""
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = inputs[0]
    return [os.fspath(p) for p in inputs]


def _warn(messages):
    for message in messages:
        _warnings.warn(message, RuntimeWarning, stacklevel=3)


def summarize(*inputs, policy="", details=False, device=""):
    """The summary `stepstat summarize INPUT... --format json` prints, as a dict.
    `device`: that GPU alone (`--device`, named as the trace names it)."""
    text, messages = _stepstat.summarize(_paths(inputs), policy, details, device)
    _warn(messages)
    return json.loads(text)


class Steps(list):
    """The steps of a run: a list of per-step dicts, with the whole report in `.report`."""

    def __init__(self, report):
        super().__init__(report["steps"])
        self.report = report

    def to_pandas(self):
        """One row per step; nested fields flattened with dots (components.gemm.milliseconds)."""
        import pandas  # optional: only this method needs it

        return pandas.json_normalize(list(self), sep=".")


def steps(*inputs, steps="", policy=""):
    """`stepstat steps INPUT... [--steps REGEX] --format json`, as Steps."""
    text, messages = _stepstat.steps(_paths(inputs), policy, steps)
    _warn(messages)
    return Steps(json.loads(text))


def report(*inputs, steps="", policy="", command_line="stepstat.report()"):
    """`stepstat report INPUT... [--steps REGEX] -o FILE`: the HTML page as text, from the
    engine call the CLI makes. `command_line` is what the page shows as its origin."""
    page, messages = _stepstat.report(_paths(inputs), policy, steps, command_line)
    _warn(messages)
    return page


class Partial:
    """One trace's (or a set of ranks') exact partial summary: integers only, merged by
    merge(). Pickles as its JSON text, so it travels between processes and machines."""

    def __init__(self, text, name="partial"):
        self.text = text
        self.name = name

    def to_dict(self):
        return json.loads(self.text)

    def __reduce__(self):
        return (Partial, (self.text, self.name))

    def __repr__(self):
        ranks = len(self.to_dict()["ranks"])
        return f"<stepstat.Partial {self.name}: {ranks} rank{'s' if ranks != 1 else ''}>"


def partial(*inputs, policy="", rank_regex="", per_device=False):
    """The partial of one trace (`stepstat summarize --partial-out`), numbered from its path.
    `per_device`: one rank row per GPU of the trace, as `stepstat ranks --per-device`."""
    paths = _paths(inputs)
    return Partial(_stepstat.partial(paths, policy, rank_regex, per_device),
                   paths[0] if paths else "")


def _texts(partials):
    texts, names = [], []
    for p in partials:
        if isinstance(p, Partial):
            texts.append(p.text)
            names.append(p.name)
        else:  # a partial file
            with open(p, encoding="utf-8") as f:
                texts.append(f.read())
            names.append(os.fspath(p))
    return texts, names


def merge_partials(partials):
    """Partials merged into one Partial (associative, commutative: any grouping, any order)."""
    texts, names = _texts(partials)
    return Partial(_stepstat.merge_partials(texts, names), names[0] if names else "merged")


def merge(partials, errors=()):
    """`stepstat merge`: the stepstat.ranks/1 dict of the job. `errors`: (input, message)
    pairs of traces that failed, reported in its errors[]."""
    texts, names = _texts(partials)
    return json.loads(_stepstat.finish(texts, names, list(errors)))


def ranks(*inputs, policy="", rank_regex="", jobs=0, per_device=False):
    """`stepstat ranks PATH... --format json`, as a dict (a failed trace is in errors[]);
    `per_device`: `--per-device`."""
    return json.loads(_stepstat.ranks(_paths(inputs), policy, rank_regex, jobs, per_device))


def dumps(value):
    """The bytes the CLI writes for a dict returned here (json.dumps, indent 2, newline)."""
    return json.dumps(value, indent=2) + "\n"
