"""The module against the CLI: the same bytes, partials that pickle, errors, two threads."""

import os
import pickle
import shutil
import unittest
from concurrent.futures import ThreadPoolExecutor

import stepstat
from helpers import cli, make_job


class ModuleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = make_job()
        cls.old_cwd = os.getcwd()
        os.chdir(cls.folder)
        cli("synth", "--out", "nvtx", "--steps", "4", "--nvtx", cwd=cls.folder)

    @classmethod
    def tearDownClass(cls):
        os.chdir(cls.old_cwd)
        shutil.rmtree(cls.folder)

    def test_summarize_is_the_cli_json_with_its_key_order(self):
        for trace in ("job/rank0", "job/rank2.pt.trace.json"):
            summary = stepstat.summarize(trace)
            self.assertEqual(stepstat.dumps(summary), cli("summarize", "--format", "json", trace))
            self.assertEqual(next(iter(summary)), "source_gpu_trace")

    def test_inputs_as_arguments_or_as_one_list_are_the_same(self):
        as_arguments = stepstat.steps("nvtx", "nvtx_nvtx_pushpop_trace.csv", steps="denoise")
        as_list = stepstat.steps(["nvtx", "nvtx_nvtx_pushpop_trace.csv"], steps="denoise")
        self.assertEqual(stepstat.dumps(as_list.report), stepstat.dumps(as_arguments.report))
        self.assertEqual(stepstat.summarize(("job/rank0",)), stepstat.summarize("job/rank0"))

    def test_summarize_with_details_and_a_policy(self):
        got = stepstat.summarize("job/rank1", policy="llm-inference", details=True)
        want = cli("summarize", "--format", "json", "--details", "--policy", "llm-inference",
                   "job/rank1")
        self.assertEqual(stepstat.dumps(got), want)

    def test_steps_are_the_cli_rows(self):
        steps = stepstat.steps("nvtx", "nvtx_nvtx_pushpop_trace.csv", steps="denoise")
        want = cli("steps", "--format", "json", "--steps", "denoise", "nvtx",
                   "nvtx_nvtx_pushpop_trace.csv")
        self.assertEqual(stepstat.dumps(steps.report), want)
        self.assertEqual(len(steps), 4)
        self.assertEqual(steps[0]["index"], 0)

    def test_report_is_the_cli_page(self):
        command = "stepstat report nvtx nvtx_nvtx_pushpop_trace.csv --steps denoise -o -"
        page = stepstat.report("nvtx", "nvtx_nvtx_pushpop_trace.csv", steps="denoise",
                               command_line=command)
        want = cli("report", "nvtx", "nvtx_nvtx_pushpop_trace.csv", "--steps", "denoise",
                   "-o", "-")
        self.assertEqual(page, want)
        self.assertIn('id="timeline"', page)

    def test_steps_to_pandas_has_one_row_a_step(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")
        frame = stepstat.steps("nvtx", "nvtx_nvtx_pushpop_trace.csv", steps="denoise").to_pandas()
        self.assertEqual(len(frame), 4)
        self.assertIn("components.sage2.milliseconds", frame.columns)

    def test_merged_partials_are_the_cli_ranks_bytes(self):
        want = cli("ranks", "job", "--format", "json")
        traces = ["job/rank0", "job/rank1", "job/rank2.pt.trace.json"]
        parts = [stepstat.partial(t) for t in traces]
        self.assertEqual(stepstat.dumps(stepstat.merge(parts)), want)
        self.assertEqual(stepstat.dumps(stepstat.merge(parts[::-1])), want)
        self.assertEqual(stepstat.dumps(stepstat.ranks("job")), want)

    def test_a_partial_pickles_and_still_merges(self):
        parts = [pickle.loads(pickle.dumps(stepstat.partial(t)))
                 for t in ("job/rank0", "job/rank1", "job/rank2.pt.trace.json")]
        self.assertEqual(stepstat.dumps(stepstat.merge(parts)), cli("ranks", "job", "--format", "json"))
        self.assertEqual(parts[0].to_dict()["schema"], stepstat.PARTIAL_SCHEMA)

    def test_errors_raise_stepstat_error_with_the_place(self):
        with open("bad_cuda_gpu_trace.csv", "w") as f:
            f.write("Start (ns),Duration (ns),Name\n1,x,k\n")
        with self.assertRaises(stepstat.Error) as raised:
            stepstat.summarize("bad_cuda_gpu_trace.csv")
        self.assertTrue(str(raised.exception).startswith("bad_cuda_gpu_trace.csv"),
                        str(raised.exception))
        with self.assertRaises(stepstat.Error):
            stepstat.merge([stepstat.partial("job/rank0"), stepstat.partial("job/rank0")])

    def test_two_threads_summarize_at_once(self):
        traces = ["job/rank0", "job/rank1"] * 4
        alone = [stepstat.dumps(stepstat.summarize(t)) for t in traces]
        with ThreadPoolExecutor(2) as pool:
            together = list(pool.map(lambda t: stepstat.dumps(stepstat.summarize(t)), traces))
        self.assertEqual(together, alone)


if __name__ == "__main__":
    unittest.main()
