#!/usr/bin/python3
"""bench/slurm_side_by_side.py's reading of Slurm's nodes (issue 37): which nodes are drained,
down or failed, with their state and Slurm's reason, from sinfo --json and from scontrol show
node; recorded Slurm 22.05 output (tests/data/slurm) and broken inputs. No Slurm or root needed.
Run by tests/slurm_side_by_side_test.sh (before it checks for root and Slurm), or alone:
  /usr/bin/python3 tests/slurm_side_by_side_parse_test.py
"""
import importlib.util
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location(
    "slurm_side_by_side", os.path.join(HERE, "..", "bench", "slurm_side_by_side.py"))
sbs = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(sbs)


def recording(name):
    with open(os.path.join(HERE, "data", "slurm", name)) as f:
        return f.read()


def troubled(nodes):
    return [n["name"] for n in nodes if sbs.node_in_trouble(n)]


def sinfo(*nodes):
    return json.dumps({"meta": {}, "errors": [], "nodes": list(nodes)})


class SinfoJson(unittest.TestCase):
    def test_recorded_drained_node(self):
        nodes = sbs.parse_sinfo_json(recording("sinfo-west-drained.json"))
        self.assertEqual(troubled(nodes), ["west-n0"])
        msg = sbs.trouble_message([n for n in nodes if sbs.node_in_trouble(n)], "slurm")
        self.assertEqual(msg, "slurm_side_by_side: node west-n0 drained during run 'slurm' "
                              "(state IDLE+DRAIN): maintenance (set by root); the figures of "
                              "this run are not valid")

    def test_recorded_down_nodes(self):
        for name in ("sinfo-west-down.json", "sinfo-east-node-killed.json"):
            nodes = sbs.parse_sinfo_json(recording(name))
            bad = [n for n in nodes if sbs.node_in_trouble(n)]
            self.assertEqual(len(bad), 1, name)
            msg = sbs.trouble_message(bad, "squeeze")
            self.assertIn("went down during run 'squeeze' (state DOWN+", msg)
            self.assertIn("Not responding", msg)

    def test_recorded_healthy_nodes(self):
        for name in ("sinfo-east.json", "sinfo-west.json", "sinfo-east-down.json"):
            # sinfo-east-down.json: recorded right after `state=down`, before Slurm showed it.
            self.assertEqual(troubled(sbs.parse_sinfo_json(recording(name))), [], name)

    def test_states_and_flags(self):
        cases = {("idle", ()): False, ("mixed", ()): False, ("allocated", ("COMPLETING",)): False,
                 ("mixed", ("NOT_RESPONDING",)): False, ("idle", ("RESERVED",)): False,
                 ("mixed", ("DRAIN",)): True, ("allocated", ("drain",)): True,
                 ("drained", ()): True, ("draining", ()): True, ("down*", ()): True,
                 ("DOWN", ("NOT_RESPONDING",)): True, ("fail", ()): True,
                 ("failing", ()): True, ("allocated+drain", ()): True, ("idle~", ()): False}
        for (state, flags), bad in cases.items():
            nodes = sbs.parse_sinfo_json(sinfo({"name": "n0", "state": state,
                                                "state_flags": list(flags), "reason": "x"}))
            self.assertEqual(sbs.node_in_trouble(nodes[0]), bad, (state, flags))

    def test_several_nodes_named_in_one_message(self):
        nodes = sbs.parse_sinfo_json(sinfo(
            {"name": "sbs-n0", "state": "mixed", "state_flags": ["DRAIN"],
             "reason": "Duplicate jobid", "reason_set_by_user": "root"},
            {"name": "sbs-n1", "state": "idle", "state_flags": []},
            {"name": "sbs-n2", "state": "down", "state_flags": ["NOT_RESPONDING"], "reason": ""}))
        bad = [n for n in nodes if sbs.node_in_trouble(n)]
        msg = sbs.trouble_message(bad, "slurm-time", when="before")
        self.assertEqual(msg, "slurm_side_by_side: node sbs-n0 drained before run 'slurm-time' "
                              "(state MIXED+DRAIN): Duplicate jobid (set by root); node sbs-n2 "
                              "went down before run 'slurm-time' (state DOWN+NOT_RESPONDING): "
                              "Slurm gave no reason; the figures of this run are not valid")

    def test_broken(self):
        for text in ("", "{", "null", "[]", '"nodes"', '{"nodes": "x"}', '{"nodes": null}',
                     '{"errors": []}', '{"nodes": [1]}', '{"nodes": [{"state": "idle"}]}',
                     '{"nodes": [{"name": "", "state": "idle"}]}',
                     '{"nodes": [{"name": "a"}]}', '{"nodes": [{"name": "a", "state": 3}]}',
                     '{"nodes": [{"name": "a", "state": "idle", "state_flags": "DRAIN"}]}',
                     '{"nodes": [{"name": "a", "state": "idle", "state_flags": [1]}]}',
                     recording("sinfo-west-drained.json")[:200]):
            with self.assertRaises(ValueError, msg=text):
                sbs.parse_sinfo_json(text)

    def test_odd_but_readable(self):
        # No nodes at all; a reason or its setter that is not text.
        self.assertEqual(sbs.parse_sinfo_json('{"nodes": []}'), [])
        n = sbs.parse_sinfo_json(sinfo({"name": "a", "state": "drained", "reason": None,
                                        "reason_set_by_user": 5}))[0]
        self.assertEqual((n["reason"], n["by"]), ("", ""))
        self.assertIn("node a drained during run 'r' (state DRAINED): Slurm gave no reason",
                      sbs.trouble_message([n], "r"))


class ScontrolNodes(unittest.TestCase):
    def test_recorded_multiline(self):
        nodes = sbs.parse_scontrol_nodes(recording("scontrol-nodes-west-down.txt"))
        self.assertEqual([(n["name"], n["state"], n["reason"], n["by"]) for n in nodes],
                         [("west-n0", "DOWN+NOT_RESPONDING", "Not responding", "root")])
        self.assertTrue(sbs.node_in_trouble(nodes[0]))
        healthy = sbs.parse_scontrol_nodes(recording("scontrol-nodes-east-down.txt"))
        self.assertEqual([(n["name"], n["reason"]) for n in healthy], [("east-n0", "")])
        self.assertEqual(troubled(healthy), [])

    def test_recorded_one_liner(self):
        # `scontrol -o show node` of Slurm 22.05.8 (the harness's cluster, 2026-12-06), after
        # `scontrol update nodename=sbs-n0 state=drain reason="Duplicate jobid"` with a job on it.
        line = ("NodeName=sbs-n0 Arch=x86_64 CoresPerSocket=1  CPUAlloc=1 CPUEfctv=32 CPUTot=32 "
                "CPULoad=1.88 AvailableFeatures=(null) ActiveFeatures=(null) Gres=gpu:8 "
                "NodeAddr=127.0.0.1 NodeHostName=vm Version=22.05.8 OS=Linux 6.18.44-fc-v1272 #1 "
                "SMP PREEMPT_DYNAMIC @0  RealMemory=16000 AllocMem=0 FreeMem=21550 Sockets=32 "
                "Boards=1 State=MIXED+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A "
                "MCS_label=N/A Partitions=low,high  BootTime=2026-12-05T12:53:56 "
                "SlurmdStartTime=2026-12-06T01:34:56 LastBusyTime=2026-12-06T01:34:56 "
                "CfgTRES=cpu=32,mem=16000M,billing=32 AllocTRES=cpu=1 CapWatts=n/a "
                "CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 "
                "ExtSensorsTemp=n/s Reason=Duplicate jobid [root@2026-12-06T01:34:59]\n")
        nodes = sbs.parse_scontrol_nodes(line)
        self.assertEqual(sbs.trouble_message(nodes, "slurm"),
                         "slurm_side_by_side: node sbs-n0 drained during run 'slurm' (state "
                         "MIXED+DRAIN): Duplicate jobid (set by root); the figures of this run "
                         "are not valid")

    def test_one_liners(self):
        nodes = sbs.parse_scontrol_nodes(
            "NodeName=sbs-n0 Arch=x86_64 CPUTot=32 State=MIXED+DRAIN ThreadsPerCore=1 "
            "Partitions=low,high Reason=Duplicate jobid [slurm@2017-10-20T10:00:00] "
            "Comment=(null)\n"
            "NodeName=sbs-n1 CPUTot=32 State=IDLE Partitions=low,high\n"
            "NodeName=sbs-n2 State=FAIL Reason=bad gpu Comment=x\n"
            "NodeName=sbs-n3 State=ALLOCATED+DRAIN+COMPLETING Reason=test\n")
        self.assertEqual(troubled(nodes), ["sbs-n0", "sbs-n2", "sbs-n3"])
        self.assertEqual([n["reason"] for n in nodes],
                         ["Duplicate jobid", "", "bad gpu", "test"])
        self.assertEqual(sbs.trouble_message(nodes[:1], "slurm"),
                         "slurm_side_by_side: node sbs-n0 drained during run 'slurm' (state "
                         "MIXED+DRAIN): Duplicate jobid (set by slurm); the figures of this run "
                         "are not valid")
        self.assertIn("node sbs-n2 failed during run 'slurm' (state FAIL): bad gpu",
                      sbs.trouble_message(nodes[2:3], "slurm"))

    def test_broken(self):
        for text in ("", "\n\n", "No nodes in the system", "slurm_load_node error: Unable to "
                     "contact slurm controller (connect failure)",
                     "NodeName=a CPUTot=8\n", "garbage\nNodeName=a State=IDLE\n",
                     "NodeName=a State=IDLE\nNodeName=b Reason=x\n", None):
            with self.assertRaises(ValueError, msg=repr(text)):
                sbs.parse_scontrol_nodes(text)


class ElasticJobs(unittest.TestCase):
    """--elastic: squeeze's copy of a job of one node asks for a range up to FACTOR x its width
    within a node, with its speed's law in its environment; Slurm alone's runs at its width."""

    def test_ranges(self):
        a = sbs.parse_args(["--squeeze", "x", "--elastic", "2", "--gpus", "8"])
        self.assertEqual(sbs.elastic_range({"gpus": 1}, a), "1-2")
        self.assertEqual(sbs.elastic_range({"gpus": 8}, a), "1-8")    # at most a node
        self.assertEqual(sbs.elastic_range({"gpus": 16}, a), 16)      # whole nodes: as they are
        self.assertEqual(sbs.train_env({"gpus": 1, "seconds": 10}, None, a)["REFERENCE_GPUS"], "1")
        self.assertEqual(sbs.train_env({"gpus": 1, "seconds": 10}, None, a)["AMDAHL_P"], "0.95")
        fixed = sbs.parse_args(["--squeeze", "x"])
        self.assertEqual(sbs.elastic_range({"gpus": 4}, fixed), 4)
        self.assertNotIn("REFERENCE_GPUS", sbs.train_env({"gpus": 1, "seconds": 10}, None, fixed))
        half = sbs.parse_args(["--squeeze", "x", "--elastic", "0.5"])
        self.assertEqual(sbs.elastic_range({"gpus": 1}, half), 1)  # no range below one GPU

    def test_the_job_runs_faster_wider(self):
        """examples/jobs/train-like.sh: 0.5 s a step on 1 GPU is 0.2625 s on 2 at P = 0.95; a
        run without SQUEEZE_WORLD_SIZE (Slurm alone's) keeps 0.5 s; broken values change
        nothing."""
        import subprocess
        import tempfile
        script = os.path.join(os.path.dirname(HERE), "examples", "jobs", "train-like.sh")

        def first_line(**env):
            with tempfile.TemporaryDirectory() as d:
                full = dict(os.environ, SQUEEZE_CHECKPOINT_DIR=d, STEPS="1", STEP_SECONDS="0.5",
                            REFERENCE_GPUS="1", AMDAHL_P="0.95")
                full.update(env)
                out = subprocess.run(["bash", script], env=full, capture_output=True, text=True,
                                     timeout=30).stdout
            return out.splitlines()[0]
        self.assertEqual(first_line(SQUEEZE_WORLD_SIZE="2"),
                         "a step takes 0.2625 s on 2 GPUs (0.5 s on 1)")
        self.assertTrue(first_line().startswith("starting from step 0"))
        self.assertEqual(first_line(SQUEEZE_WORLD_SIZE="2", AMDAHL_P="7"),
                         "a step takes 0.5 s on 2 GPUs (0.5 s on 1)")


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False, verbosity=1).result.wasSuccessful() else 1)
