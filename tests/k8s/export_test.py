#!/usr/bin/python3
"""ctest k8s.export: `squeeze export kueue|volcano` on every examples/clusters/philly-half*.yaml
and on examples/clusters/two-teams.yaml, each object checked by check_objects.py (the CRDs of
third_party/k8s-crds, strictly), then the content: the queues' GPUs add up to the cluster's (as
this script counts them in the cluster file itself), spot flavors carry the spot taint, the
priority classes are ordered as squeeze's urgency classes, every queue a LocalQueue or
ClusterQueue names exists. With a topology (two-teams-racks.yaml): the Topology's levels, the
flavors that name it, the HyperNodes' tiers and members and the network-topology-aware plugin.
Also --history, and a broken cluster file refused naming the field.

  export_test.py SQUEEZE SOURCE_DIR WORK_DIR
"""

import glob
import os
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_objects  # noqa: E402
import rules  # noqa: E402

URGENCY = ["squeeze-low", "squeeze-normal", "squeeze-high", "squeeze-critical"]


def cluster_gpus(path):
    """GPUs of a YAML cluster file, counted as docs/cluster-file.md says (count 1, gpus 8)."""
    with open(path) as f:
        spec = yaml.safe_load(f)
    return sum(n.get("count", 1) * n.get("gpus", 8)
               for p in spec["pools"] for n in p.get("nodes") or [])


def export(squeeze, target, cluster, out, *extra):
    run = subprocess.run([squeeze, "export", target, "--cluster", cluster, "-o", out, *extra],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise AssertionError("squeeze export %s %s failed: %s" % (target, cluster, run.stderr))
    return out


def by_kind(docs):
    out = {}
    for d in docs:
        out.setdefault(d["kind"], []).append(d)
    return out


def topology_nodes(path):
    """Nodes of a YAML cluster file that are in its topology (0 without one)."""
    with open(path) as f:
        spec = yaml.safe_load(f)
    if "topology" not in spec:
        return 0
    return sum(n.get("count", 1) for p in spec["pools"] for n in p.get("nodes") or []
               if "topology" in n)


def check_kueue_topology(kinds, flavors, what):
    topologies = {t["metadata"]["name"]: t for t in kinds.get("Topology", [])}
    named = [f["spec"]["topologyName"] for f in flavors.values() if "topologyName" in f["spec"]]
    assert all(n in topologies for n in named), "%s: flavors name %s, topologies %s" % (
        what, named, sorted(topologies))
    for name, t in topologies.items():
        levels = [level["nodeLabel"] for level in t["spec"]["levels"]]
        assert levels[-1] == "kubernetes.io/hostname" and all(
            level.startswith("squeeze.dev/") for level in levels[:-1]), \
            "%s: Topology %s levels %s" % (what, name, levels)
        assert named, "%s: no flavor names the Topology %s" % (what, name)
    return ", Topology of %d levels named by %d flavors" % (
        len(topologies[named[0]]["spec"]["levels"]), len(named)) if named else ""


def check_hypernodes(kinds, nodes, what):
    hypernodes = {h["metadata"]["name"]: h["spec"] for h in kinds.get("HyperNode", [])}
    parents = {}
    node_members = 0
    for name, spec in hypernodes.items():
        for m in spec["members"]:
            member = m["selector"]["exactMatch"]["name"]
            if spec["tier"] == 1:
                assert m["type"] == "Node", "%s: tier-1 HyperNode %s lists %s" % (what, name, m)
                node_members += 1
                continue
            assert m["type"] == "HyperNode" and hypernodes[member]["tier"] == spec["tier"] - 1, \
                "%s: HyperNode %s (tier %d) lists %s" % (what, name, spec["tier"], m)
            assert member not in parents, "%s: %s in %s and %s" % (
                what, member, parents.get(member), name)
            parents[member] = name
    top = max([h["tier"] for h in hypernodes.values()] or [0])
    orphans = [n for n, h in hypernodes.items() if h["tier"] < top and n not in parents]
    assert not orphans, "%s: HyperNodes in no wider one: %s" % (what, orphans)
    assert node_members == nodes, "%s: HyperNodes list %d nodes, the topology has %d" % (
        what, node_members, nodes)
    conf = kinds["ConfigMap"][0]["data"]["volcano-scheduler.conf"]
    assert ("name: network-topology-aware" in conf) == bool(hypernodes), \
        "%s: network-topology-aware plugin and %d HyperNodes" % (what, len(hypernodes))
    return ", %d HyperNodes in %d tiers" % (len(hypernodes), top) if hypernodes else ""


def check_ordered_priorities(objs, what):
    values = {o["metadata"]["name"]: o["value"] for o in objs}
    assert sorted(values) == sorted(URGENCY), "%s: priority classes %s" % (what, sorted(values))
    ordered = [values[n] for n in URGENCY]
    assert ordered == sorted(set(ordered)), "%s: not ordered low < ... < critical: %s" % (
        what, ordered)


def check_kueue(docs, gpus, what, nodes):
    kinds = by_kind(docs)
    flavors = {f["metadata"]["name"]: f for f in kinds["ResourceFlavor"]}
    for name, f in flavors.items():
        if f["spec"]["nodeLabels"].get("squeeze.dev/pool-kind") == "spot":
            taints = f["spec"].get("nodeTaints", [])
            assert {"key": "squeeze.dev/spot", "value": "true", "effect": "NoSchedule"} in taints, \
                "%s: spot flavor %s has no spot taint" % (what, name)
            assert "tolerations" not in f["spec"], "%s: %s tolerates its own taint" % (what, name)
    check_ordered_priorities(kinds["WorkloadPriorityClass"], what)
    queues = {q["metadata"]["name"]: q for q in kinds["ClusterQueue"]}
    total = 0
    for name, q in queues.items():
        for group in q["spec"]["resourceGroups"]:
            for f in group["flavors"]:
                assert f["name"] in flavors, "%s: %s names no flavor %s" % (what, name, f["name"])
                gpu = [r for r in f["resources"] if r["name"] == "nvidia.com/gpu"]
                total += int(rules.quantity(gpu[0]["nominalQuota"]))
    assert total == gpus, "%s: the ClusterQueues' GPUs add up to %d, the cluster has %d" % (
        what, total, gpus)
    locals_ = kinds["LocalQueue"]
    assert sorted(lq["spec"]["clusterQueue"] for lq in locals_) == sorted(queues), \
        "%s: not one LocalQueue per ClusterQueue" % what
    return "%d GPUs in %d ClusterQueues%s" % (total, len(queues),
                                              check_kueue_topology(kinds, flavors, what))


def check_volcano(docs, gpus, what, nodes):
    kinds = by_kind(docs)
    check_ordered_priorities(kinds["PriorityClass"], what)
    total = sum(int(rules.quantity(q["spec"]["deserved"]["nvidia.com/gpu"]))
                for q in kinds["Queue"])
    assert total == gpus, "%s: the Queues' deserved GPUs add up to %d, the cluster has %d" % (
        what, total, gpus)
    conf = yaml.safe_load(kinds["ConfigMap"][0]["data"]["volcano-scheduler.conf"])
    assert conf["actions"].startswith("enqueue, allocate"), "%s: actions %s" % (what, conf)
    return "%d GPUs in %d Queues%s" % (total, len(kinds["Queue"]),
                                       check_hypernodes(kinds, nodes, what))


def check_broken_cluster(squeeze, work):
    broken = os.path.join(work, "broken.yaml")
    with open(broken, "w") as f:
        f.write("pools:\n  - name: a\n    nodes:\n      - count: 2\n        gpus: many\n")
    for target in ("kueue", "volcano"):
        run = subprocess.run([squeeze, "export", target, "--cluster", broken],
                             capture_output=True, text=True)
        expected = "broken.yaml:5: pools[0].nodes[0].gpus: value 'many' is not an integer"
        assert run.returncode == 1 and expected in run.stderr and not run.stdout, \
            "export %s of a broken file: rc %d, %r" % (target, run.returncode, run.stderr)
    print("broken cluster file: refused, naming pools[0].nodes[0].gpus")


def main(squeeze, source, work):
    os.makedirs(work, exist_ok=True)
    catalog = check_objects.Catalog(os.path.join(source, "third_party", "k8s-crds"))
    tally = rules.CelTally()
    clusters = sorted(glob.glob(os.path.join(source, "examples", "clusters", "philly-half*.yaml")))
    clusters.append(os.path.join(source, "examples", "clusters", "two-teams-racks.yaml"))
    clusters.append(os.path.join(source, "examples", "clusters", "two-teams.yaml"))
    failures = 0
    for cluster in clusters:
        name = os.path.basename(cluster)[:-len(".yaml")]
        gpus = cluster_gpus(cluster)
        for target, check in (("kueue", check_kueue), ("volcano", check_volcano)):
            out = export(squeeze, target, cluster,
                         os.path.join(work, "%s.%s.yaml" % (name, target)))
            docs, problems = check_objects.check_file(out, catalog, tally)
            for line in problems:
                print(line)
            failures += bool(problems)
            summary = check(docs, gpus, "%s %s" % (name, target), topology_nodes(cluster))
            print("%s %s: %d objects valid; %s" % (name, target, len(docs), summary))
    history = os.path.join(source, "examples", "jobs", "profile-example.csv")
    out = export(squeeze, "kueue", clusters[-1], os.path.join(work, "history.kueue.yaml"),
                 "--history", history)
    docs, problems = check_objects.check_file(out, catalog, tally)
    failures += bool(problems)
    teams = sorted(d["metadata"]["namespace"] for d in docs if d["kind"] == "LocalQueue"
                   and d["metadata"]["namespace"] != "default")
    assert teams == ["nlp", "platform", "product", "robotics", "search", "speech",
                     "vision"], teams
    print("two-teams kueue --history profile-example.csv: %d objects valid, LocalQueues of "
          "teams %s" % (len(docs), ", ".join(teams)))
    check_broken_cluster(squeeze, work)
    print(tally.line())
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
