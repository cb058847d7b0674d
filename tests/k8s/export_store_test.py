#!/usr/bin/python3
"""ctest k8s.export_store: `squeeze export kueue|volcano --store DATA_DIR` on a real daemon's
data directory. A `squeeze serve` runs jobs of teams vision (guaranteed GPUs in
examples/clusters/two-teams.yaml) and speech (named nowhere in it); once they finished and the
daemon stopped, the Kueue export has a LocalQueue (and a ClusterQueue with no guarantee) for
speech that the export without --store lacks, the Volcano export a Queue for it, every object
valid against the CRDs; a --store that is not a data directory is refused, naming it.

  export_store_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR   (CASE: store)
"""

import getpass
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import check_objects  # noqa: E402
import rules  # noqa: E402
import serve_lib  # noqa: E402
from serve_lib import check, log  # noqa: E402


def export(h, squeeze, target, cluster, *extra):
    r = h.run([squeeze, "export", target, "--cluster", cluster, *extra], timeout=60)
    check(r.returncode == 0, f"squeeze export {target} {' '.join(extra)}: exit {r.returncode}: "
                             f"{r.stderr}")
    return r.stdout


def checked(h, text, name, catalog, tally):
    """The documents of an export, each checked against its CRD (a failure lists problems)."""
    path = h.path(name)
    with open(path, "w") as f:
        f.write(text)
    docs, problems = check_objects.check_file(path, catalog, tally)
    check(not problems, f"{name}: objects that do not validate:\n" + "\n".join(problems))
    return docs


def named(docs, kind):
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def case_store(squeeze, source, h):
    cluster = os.path.join(source, "examples", "clusters", "two-teams.yaml")
    catalog = check_objects.Catalog(os.path.join(source, "third_party", "k8s-crds"))
    tally = rules.CelTally()
    d = h.start_daemon(squeeze, "data", ["--virtual-gpus", "2:A100"])
    me = getpass.getuser()
    ids = []
    for team in ("vision", "speech"):
        token = h.add_token("data", me, team)
        serve_lib.wait_until(lambda: d.call("GET", "/v1/jobs", token=token)[0] == 200, 15,
                             f"the daemon to accept {team}'s new token")
        ids.append(d.submit({"name": f"{team}-prep", "gpus": 1, "command": ["true"]},
                            token=token))
    for job_id in ids:
        d.wait_state(job_id, "done", timeout=60)
    check(d.stop() == 0, "the daemon stops cleanly")

    without = checked(h, export(h, squeeze, "kueue", cluster), "kueue.yaml", catalog, tally)
    with_store = checked(h, export(h, squeeze, "kueue", cluster, "--store", d.data_dir),
                         "kueue-store.yaml", catalog, tally)
    namespaces = lambda docs: sorted(q["metadata"]["namespace"]  # noqa: E731
                                     for q in named(docs, "LocalQueue").values())
    log(f"kueue LocalQueues' namespaces: without --store {namespaces(without)}, "
        f"with {namespaces(with_store)}")
    check("speech" not in namespaces(without), "speech has a queue without --store")
    check("speech" in namespaces(with_store) and "vision" in namespaces(with_store),
          f"--store: no LocalQueue for each team that ran: {namespaces(with_store)}")
    speech = [q for q in named(with_store, "LocalQueue").values()
              if q["metadata"]["namespace"] == "speech"][0]
    queue = named(with_store, "ClusterQueue").get(speech["spec"]["clusterQueue"])
    check(queue is not None, f"speech's LocalQueue names no ClusterQueue: {speech}")
    quota = [int(rules.quantity(r["nominalQuota"])) for g in queue["spec"]["resourceGroups"]
             for f in g["flavors"] for r in f["resources"] if r["name"] == "nvidia.com/gpu"]
    check(sum(quota) == 0, f"speech, guaranteed nothing, has nominal GPUs: {queue['spec']}")

    volcano = checked(h, export(h, squeeze, "volcano", cluster, "--store", d.data_dir),
                      "volcano-store.yaml", catalog, tally)
    queues = sorted(named(volcano, "Queue"))
    log(f"volcano Queues with --store: {queues}")
    check(any("speech" in q for q in queues), f"volcano --store: no Queue of speech: {queues}")

    nowhere = h.path("nowhere")
    r = h.run([squeeze, "export", "kueue", "--cluster", cluster, "--store", nowhere], timeout=60)
    check(r.returncode != 0 and nowhere in r.stderr and not r.stdout,
          f"--store {nowhere}: exit {r.returncode}, stderr {r.stderr!r}")
    log(f"--store {nowhere}: {r.stderr.strip()}")


if __name__ == "__main__":
    sys.exit(serve_lib.main({"store": case_store}, sys.argv))
