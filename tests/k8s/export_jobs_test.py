#!/usr/bin/python3
"""ctest k8s.export_jobs: `squeeze export kueue|volcano --job FILE` on job files and a batch
script for examples/clusters/two-teams-racks.yaml. Each object is checked by check_objects.py
(the CRDs of third_party/k8s-crds and batch/v1 Job with the pod template they carry, strictly),
then against the cluster's own export: a Job's LocalQueue (in its namespace) or Volcano Queue,
priority class, topology level (a Topology level or a HyperNode tier), GPU models (the flavors'
product labels) and tolerations (the flavors' taints) all exist there, and its pods hold the
job's GPUs. Job arrays: each task an index of the Job, and the pod's shell line, run here,
gives each index its task id. Hostile input: the submitter's environment stays out of the manifest, a name and
environment values with quotes and control characters come back as written, a broken job file
is refused naming the field and the value.

  export_jobs_test.py SQUEEZE SOURCE_DIR WORK_DIR
"""

import os
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_objects  # noqa: E402
import rules  # noqa: E402

JOBS = {
    # name -> (file name, text, GPUs)
    "llm-pretrain": ("llm.yaml", """name: llm-pretrain
command: [python, train.py, --steps, "1000"]
gpus: 16
gpu_models: [A100]
topology: required:rack
team: nlp
urgency: high
cpus: 32
memory: 256GiB
checkpointable: true
checkpoint_cost: 2m
time_limit: 12h
env: {WANDB_MODE: offline, ODD: "quote \\" and tab\\t and newline\\n"}
""", 16),
    "sweep": ("sweep.yaml", """name: sweep
command: [python, sweep.py]
gpus: 8-32
step: 8
preemptible: true
gpu_memory: 80GiB
""", 32),
    "bert-eval": ("eval.sbatch", """#!/bin/bash
#SBATCH -J bert-eval
#SBATCH --nodes=2
#SBATCH --gres=gpu:8
#SBATCH --time=1:00:00
#SBATCH --switches=1
#SBATCH --export=ALL
#SBATCH --account=vision
echo "$SECRET_TOKEN" >/dev/null
srun python eval.py
""", 16),
}


def write_jobs(work):
    paths = []
    for file_name, text, _ in JOBS.values():
        path = os.path.join(work, file_name)
        with open(path, "w") as f:
            f.write(text)
        paths.append(path)
    return paths


def run_export(squeeze, target, cluster, out, *extra):
    env = dict(os.environ, SECRET_TOKEN="hunter2-do-not-leak")
    run = subprocess.run([squeeze, "export", target, "--cluster", cluster, "-o", out, *extra],
                         capture_output=True, text=True, env=env)
    assert run.returncode == 0, "squeeze export %s %s: %s" % (target, extra, run.stderr)
    with open(out) as f:
        text = f.read()
    assert "hunter2" not in text, "the submitter's environment is in the manifest"
    return out


def pod_shape(kind_spec, target):
    """(pods, GPUs per pod, pod spec) of a Job."""
    if target == "kueue":
        pod = kind_spec["template"]["spec"]
        pods = kind_spec["parallelism"]
    else:
        pod = kind_spec["tasks"][0]["template"]["spec"]
        pods = kind_spec["tasks"][0]["replicas"]
    gpus = pod["containers"][0]["resources"].get("limits", {}).get("nvidia.com/gpu", 0)
    return pods, gpus, pod


def affinity_products(pod):
    terms = (((pod.get("affinity") or {}).get("nodeAffinity") or {})
             .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    out = set()
    for term in terms.get("nodeSelectorTerms", []):
        for e in term["matchExpressions"]:
            if e["key"] == "nvidia.com/gpu.product":
                out.update(e["values"])
    return out


def check_pods(job, target, flavors):
    name = job["metadata"]["name"]
    pods, gpus, pod = pod_shape(job["spec"], target)
    assert pods * gpus == JOBS[name][2], "%s: %d pods of %d GPUs for %d" % (
        name, pods, gpus, JOBS[name][2])
    products = {f["spec"]["nodeLabels"].get("nvidia.com/gpu.product") for f in flavors}
    assert affinity_products(pod) <= products, "%s: models %s, flavors %s" % (
        name, affinity_products(pod), products)
    taints = {t["key"] for f in flavors for t in f["spec"].get("nodeTaints", [])}
    tolerated = {t["key"] for t in pod.get("tolerations", [])}
    assert tolerated <= taints, "%s: tolerates %s, taints %s" % (name, tolerated, taints)
    return name, pods, pod


def check_kueue_jobs(cluster_docs, job_docs):
    kinds = {}
    for d in cluster_docs:
        kinds.setdefault(d["kind"], []).append(d)
    local_queues = {(q["metadata"]["namespace"], q["metadata"]["name"]) for q in kinds["LocalQueue"]}
    classes = {c["metadata"]["name"] for c in kinds["WorkloadPriorityClass"]}
    levels = {lv["nodeLabel"] for t in kinds.get("Topology", []) for lv in t["spec"]["levels"]}
    services = {(d["metadata"]["namespace"], d["metadata"]["name"]) for d in job_docs
                if d["kind"] == "Service"}
    seen = {}
    for job in (d for d in job_docs if d["kind"] == "Job"):
        meta = job["metadata"]
        labels = meta["labels"]
        assert (meta["namespace"], labels["kueue.x-k8s.io/queue-name"]) in local_queues, \
            "%s: no LocalQueue %s in %s" % (meta["name"], labels["kueue.x-k8s.io/queue-name"],
                                            meta["namespace"])
        assert labels["kueue.x-k8s.io/priority-class"] in classes
        assert job["spec"]["suspend"] is True
        name, pods, pod = check_pods(job, "kueue", kinds["ResourceFlavor"])
        annotations = (job["spec"]["template"].get("metadata") or {}).get("annotations") or {}
        for key, value in annotations.items():
            if key.startswith("kueue.x-k8s.io/podset-") and value != "true":
                assert value in levels, "%s: level %s, Topology %s" % (name, value, levels)
        if pods > 1:
            assert (meta["namespace"], pod["subdomain"]) in services, "%s: no Service" % name
        seen[name] = annotations
    assert seen["llm-pretrain"] == {"kueue.x-k8s.io/podset-required-topology": "squeeze.dev/rack"}
    assert seen["bert-eval"] == {"kueue.x-k8s.io/podset-preferred-topology": "squeeze.dev/block"}
    return sorted(seen)


def check_volcano_jobs(cluster_docs, kueue_cluster_docs, job_docs):
    queues = {d["metadata"]["name"] for d in cluster_docs if d["kind"] == "Queue"}
    classes = {d["metadata"]["name"] for d in cluster_docs if d["kind"] == "PriorityClass"}
    tiers = [d["spec"]["tier"] for d in cluster_docs if d["kind"] == "HyperNode"]
    flavors = [d for d in kueue_cluster_docs if d["kind"] == "ResourceFlavor"]
    seen = {}
    for job in job_docs:
        spec = job["spec"]
        assert spec["queue"] in queues, "%s: no Queue %s" % (job["metadata"]["name"], spec["queue"])
        assert spec["priorityClassName"] in classes and spec["schedulerName"] == "volcano"
        name, pods, _ = check_pods(job, "volcano", flavors)
        topology = spec.get("networkTopology")
        if topology and "highestTierAllowed" in topology:
            assert topology["highestTierAllowed"] <= max(tiers)
        assert spec["minAvailable"] <= pods
        seen[name] = (spec["minAvailable"], pods, topology)
    assert seen["sweep"][:2] == (1, 4), seen["sweep"]
    assert seen["llm-pretrain"][2] == {"mode": "hard", "highestTierAllowed": 2}
    return sorted(seen)


def check_hostile(squeeze, cluster, work, job_docs):
    llm = next(d for d in job_docs if d["kind"] == "Job" and d["metadata"]["name"] == "llm-pretrain")
    env = {e["name"]: e.get("value") for e in llm["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["ODD"] == 'quote " and tab\t and newline\n', repr(env["ODD"])
    odd_name = os.path.join(work, "sweep\nkind: Secret\u2028x.yaml")
    with open(os.path.join(work, "sweep.yaml")) as src, open(odd_name, "w") as f:
        f.write(src.read())
    out = os.path.join(work, "odd.yaml")
    run_export(squeeze, "volcano", cluster, out, "--job", odd_name, "--image", "img")
    with open(out) as f:
        kinds = [d["kind"] for d in yaml.safe_load_all(f) if d]
    assert kinds == ["Job"], "a file name wrote objects of its own: %s" % kinds
    broken = os.path.join(work, "broken.yaml")
    with open(broken, "w") as f:
        f.write("name: b\ncommand: [x]\ngpus: many\n")
    cases = [
        (["--job", broken, "--image", "img"], "broken.yaml:3:7: gpus: value 'many'"),
        (["--job", os.path.join(work, "sweep.yaml")], "--image: give the container image"),
        (["--image", "img"], "--image: only with --job"),
        (["--job", os.path.join(work, "sweep.yaml"), "--image", "a b"], "--image 'a b'"),
    ]
    for extra, expected in cases:
        run = subprocess.run([squeeze, "export", "kueue", "--cluster", cluster, *extra],
                             capture_output=True, text=True)
        assert run.returncode != 0 and expected in run.stderr and not run.stdout, \
            "export %s: rc %d, %r (expected %r)" % (extra, run.returncode, run.stderr, expected)
    print("hostile: no submitter environment, odd values kept, a file name with line breaks "
          "kept in its comment, %d bad inputs refused" % len(cases))


ARRAYS = {
    # name -> (file name, text, the task ids of its indices 0, 1, ...)
    "odd": ("odd.yaml", 'name: odd\ncommand: [sh, -c, "echo task=$SQUEEZE_ARRAY_TASK_ID"]\n'
            'array: "1,3,4,9%2"\n', [1, 3, 4, 9]),
    "every-fourth": ("fourth.sbatch", "#!/bin/sh\n#SBATCH --array=0-8:4\n#SBATCH -J every-fourth\n"
                     "echo task=$SQUEEZE_ARRAY_TASK_ID\n", [0, 4, 8]),
    # Its arguments reach the command as they are, never through the pod's shell line.
    "literal": ("literal.yaml", 'name: literal\ncommand: [sh, -c, \'echo "task=$SQUEEZE_ARRAY_'
                'TASK_ID $0"\', "$(touch pwned); echo no"]\narray: 7-8\n', [7, 8]),
}


def check_arrays(squeeze, cluster, work, catalog, tally):
    """Job arrays: each task one index of the Job; the pods' own shell line, run here by
    /bin/sh for each index, gives the task its id."""
    args = []
    for file_name, text, _ in ARRAYS.values():
        path = os.path.join(work, file_name)
        with open(path, "w") as f:
            f.write(text)
        args += ["--job", path]
    problems_found = 0
    for target in ("kueue", "volcano"):
        out = run_export(squeeze, target, cluster, os.path.join(work, "arrays.%s.yaml" % target),
                         *args, "--image", "img")
        docs, problems = check_objects.check_file(out, catalog, tally)
        for line in problems:
            print(line)
        problems_found += bool(problems)
        for job in docs:
            name = job["metadata"]["name"]
            tasks = ARRAYS[name][2]
            if target == "kueue":
                pod, count = job["spec"]["template"]["spec"], job["spec"]["completions"]
            else:
                pod, count = (job["spec"]["tasks"][0]["template"]["spec"],
                              job["spec"]["tasks"][0]["replicas"])
            assert count == len(tasks), "%s %s: %d indices for %s" % (target, name, count, tasks)
            command = pod["containers"][0]["command"]
            got = []
            for index in range(count):
                env = dict(os.environ, SQUEEZE_ARRAY_INDEX=str(index))
                run = subprocess.run(command, capture_output=True, text=True, env=env, cwd=work)
                got.append(run.stdout.strip())
            suffix = " $(touch pwned); echo no" if name == "literal" else ""
            assert got == ["task=%d%s" % (t, suffix) for t in tasks], "%s %s: %s" % (
                target, name, got)
            assert not os.path.exists(os.path.join(work, "pwned")), "an argument ran as shell"
    print("arrays: %s, each index's pod runs its task (by /bin/sh here)" % ", ".join(
        "%s %s" % (n, ARRAYS[n][2]) for n in ARRAYS))
    return problems_found


def main(squeeze, source, work):
    os.makedirs(work, exist_ok=True)
    catalog = check_objects.Catalog(os.path.join(source, "third_party", "k8s-crds"))
    tally = rules.CelTally()
    cluster = os.path.join(source, "examples", "clusters", "two-teams-racks.yaml")
    job_args = []
    for path in write_jobs(work):
        job_args += ["--job", path]
    failures = 0
    docs = {}
    for target in ("kueue", "volcano"):
        for what, extra in (("cluster", []), ("jobs", job_args + ["--image", "ghcr.io/ex/t:1"])):
            out = run_export(squeeze, target, cluster,
                             os.path.join(work, "%s.%s.yaml" % (what, target)), *extra)
            found, problems = check_objects.check_file(out, catalog, tally)
            for line in problems:
                print(line)
            failures += bool(problems)
            docs[(target, what)] = found
            print("%s %s: %d objects valid" % (target, what, len(found)))
    names = check_kueue_jobs(docs[("kueue", "cluster")], docs[("kueue", "jobs")])
    print("kueue jobs %s: queues, priority classes, topology levels, models, taints exist"
          % ", ".join(names))
    names = check_volcano_jobs(docs[("volcano", "cluster")], docs[("kueue", "cluster")],
                               docs[("volcano", "jobs")])
    print("volcano jobs %s: queues, priority classes, tiers, models, taints exist"
          % ", ".join(names))
    failures += check_arrays(squeeze, cluster, work, catalog, tally)
    check_hostile(squeeze, cluster, work, docs[("kueue", "jobs")])
    print(tally.line())
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
