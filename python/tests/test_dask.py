"""stepstat.dask on loopback clusters: a LocalCluster of 2 workers, and a scheduler and a
worker started as processes with a scheduler file. Each run is bounded in time and every
process it starts is ended by its id."""

import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

from helpers import cli, make_job

PYTHON = os.environ.get("PYTHON", sys.executable)
LIMIT_S = 180  # a run of the runner, generous for 2 busy cores


def start(*args, log, cwd):
    """A process in a group of its own, so that ending it ends what it started."""
    return subprocess.Popen([PYTHON, *args], stdout=log, stderr=subprocess.STDOUT, cwd=cwd,
                            start_new_session=True)


def end(process):
    """Ends the process and its group by id: SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


class DaskTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise unittest.SkipTest("distributed is not installed (scripts/setup installs it)")
        cls.folder = make_job(ranks=4)
        cls.want = cli("ranks", "job", "--format", "json", cwd=cls.folder)
        cls.want_per_device = cli("ranks", "job", "--per-device", "--format", "json",
                                  cwd=cls.folder)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder)

    def run_runner(self, *where):
        out = os.path.join(self.folder, "dask.json")
        if os.path.exists(out):
            os.remove(out)
        done = subprocess.run([PYTHON, "-m", "stepstat.dask", "job", *where, "-o", out],
                              cwd=self.folder, capture_output=True, text=True, timeout=LIMIT_S)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out, encoding="utf-8") as f:
            return f.read()

    def test_a_local_cluster_of_two_workers_writes_the_cli_bytes(self):
        self.assertEqual(self.run_runner("--local", "2"), self.want)

    def test_partials_merged_in_small_batches_give_the_same_bytes(self):
        # --per-device travels to the workers too (each row then names its device).
        out = os.path.join(self.folder, "batches.json")
        code = ("import sys, stepstat.dask as d; d.MERGE_BATCH = 2; "
                f"sys.exit(d.main(['job', '--local', '2', '--per-device', '-o', {out!r}]))")
        done = subprocess.run([PYTHON, "-c", code], cwd=self.folder, capture_output=True,
                              text=True, timeout=LIMIT_S)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), self.want_per_device)
        self.assertIn('"device": "NVIDIA GB10 (0)"', self.want_per_device)

    def test_a_scheduler_and_worker_from_the_shell_write_the_cli_bytes(self):
        scheduler_file = os.path.join(self.folder, "scheduler.json")
        log_path = os.path.join(self.folder, "cluster.log")
        with open(log_path, "w") as log:
            scheduler = start("-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                              "--port", "0", "--dashboard-address", "127.0.0.1:0",
                              "--scheduler-file", scheduler_file, log=log, cwd=self.folder)
            workers = []
            try:
                deadline = time.monotonic() + 60
                while not os.path.exists(scheduler_file):
                    self.assertLess(time.monotonic(), deadline, "no scheduler file in 60 s")
                    self.assertIsNone(scheduler.poll(), "the scheduler stopped")
                    time.sleep(0.2)
                # Workers resolve relative paths in their own folder: start them in the job's.
                for _ in range(2):
                    workers.append(start("-m", "distributed.cli.dask_worker", "--scheduler-file",
                                         scheduler_file, "--host", "127.0.0.1", "--nthreads", "1",
                                         "--no-nanny", "--dashboard-address", "127.0.0.1:0",
                                         log=log, cwd=self.folder))
                self.assertEqual(self.run_runner("--scheduler-file", scheduler_file), self.want)
            finally:
                for process in [*workers, scheduler]:
                    end(process)


if __name__ == "__main__":
    unittest.main()
