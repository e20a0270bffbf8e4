"""`--per-device` through the SQLite and Kineto readers, and from Python: a trace of two GPUs
made by folding a second single-GPU capture into a first as device 1 must split back into the
two captures' own summaries; the module prints the CLI's bytes."""

import json
import os
import shutil
import sqlite3
import tempfile
import unittest

import stepstat
from helpers import cli

DEVICE = "NVIDIA GB10 ({})"
# Ids of the folded-in capture move past the first's, so the two never join each other.
CORRELATION_OFFSET = 10_000_000
STRING_OFFSET = 1_000_000


def two_gpu_sqlite(first, second, out):
    """`first` with `second`'s GPU work as device 1 (launch calls joined by correlation id)."""
    shutil.copyfile(first, out)
    db = sqlite3.connect(out)
    db.execute("ATTACH DATABASE ? AS b", (second,))
    db.execute(f"INSERT INTO StringIds SELECT id + {STRING_OFFSET}, value FROM b.StringIds")
    for table, names in (("CUPTI_ACTIVITY_KIND_KERNEL", ("demangledName", "shortName",
                                                         "mangledName")),
                         ("CUPTI_ACTIVITY_KIND_MEMCPY", ()),
                         ("CUPTI_ACTIVITY_KIND_MEMSET", ())):
        db.execute(f"CREATE TEMP TABLE t AS SELECT * FROM b.{table}")
        moved = [f"correlationId = correlationId + {CORRELATION_OFFSET}", "deviceId = 1"]
        moved += [f"{name} = {name} + {STRING_OFFSET}" for name in names]
        db.execute(f"UPDATE t SET {', '.join(moved)}")
        db.execute(f"INSERT INTO {table} SELECT * FROM t")
        db.execute("DROP TABLE t")
    db.execute("CREATE TEMP TABLE t AS SELECT * FROM b.CUPTI_ACTIVITY_KIND_RUNTIME")
    db.execute(f"UPDATE t SET correlationId = correlationId + {CORRELATION_OFFSET}, "
               f"nameId = nameId + {STRING_OFFSET}")
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT * FROM t")
    db.execute("DROP TABLE t")
    db.execute("CREATE TEMP TABLE t AS SELECT * FROM TARGET_INFO_GPU WHERE id = 0")
    db.execute("UPDATE t SET id = 1")
    db.execute("INSERT INTO TARGET_INFO_GPU SELECT * FROM t")
    db.commit()
    db.close()


def two_gpu_kineto(first, second, out):
    """`first` with `second`'s GPU events as device 1 and its launch calls beside them."""
    with open(first, encoding="utf-8") as f:
        trace = json.load(f)
    with open(second, encoding="utf-8") as f:
        other = json.load(f)
    trace["deviceProperties"].append(dict(trace["deviceProperties"][0], id=1))
    for event in other["traceEvents"]:
        args = event.get("args", {})
        if event.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            event["pid"] = 1
            args["device"] = 1
        elif event.get("cat") not in ("cuda_runtime", "cuda_driver"):
            continue  # its step annotations and flow arrows would only confuse the first's
        if "correlation" in args:
            args["correlation"] += CORRELATION_OFFSET
        trace["traceEvents"].append(event)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(trace, f)


def measures(summary):
    """A summary without the names of its files."""
    return {k: v for k, v in summary.items() if not k.startswith("source_")}


class PerDeviceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="stepstat-per-device-")
        cls.traces = {}
        for fmt, ending, fold in (("sqlite", ".sqlite", two_gpu_sqlite),
                                  ("kineto", ".pt.trace.json", two_gpu_kineto)):
            for seed in (1, 2):
                cli("synth", "--out", f"{fmt}{seed}", "--seed", str(seed), "--steps", "2",
                    "--format", fmt, cwd=cls.folder)
            path = os.path.join(cls.folder, f"two_{fmt}{ending}")
            fold(os.path.join(cls.folder, f"{fmt}1{ending}"),
                 os.path.join(cls.folder, f"{fmt}2{ending}"), path)
            cls.traces[fmt] = (path, [os.path.join(cls.folder, f"{fmt}{s}{ending}")
                                      for s in (1, 2)])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder)

    def test_each_device_summarizes_as_its_capture_alone(self):
        for fmt, (two, alone) in self.traces.items():
            for device, single in enumerate(alone):
                with self.subTest(fmt=fmt, device=device):
                    got = stepstat.summarize(two, device=DEVICE.format(device))
                    self.assertEqual(measures(got), measures(stepstat.summarize(single)))

    def test_ranks_per_device_is_the_cli_and_its_partials_merge_to_it(self):
        for fmt, (two, alone) in self.traces.items():
            with self.subTest(fmt=fmt):
                want = cli("ranks", two, alone[0], "--per-device", "--format", "json")
                job = stepstat.ranks(two, alone[0], per_device=True)
                self.assertEqual(stepstat.dumps(job), want)
                self.assertEqual([(r["rank"], r["device"]) for r in job["ranks"]],
                                 [(0, DEVICE.format(0)), (1, DEVICE.format(0)),
                                  (1, DEVICE.format(1))])
                parts = [stepstat.partial(t, per_device=True) for t in (alone[0], two)]
                self.assertEqual(stepstat.dumps(stepstat.merge(parts[::-1])), want)

    def test_without_per_device_the_file_is_one_rank(self):
        two, _ = self.traces["sqlite"]
        job = stepstat.ranks(two)
        self.assertEqual(len(job["ranks"]), 1)
        self.assertNotIn("device", job["ranks"][0])


if __name__ == "__main__":
    unittest.main()
