#!/usr/bin/python3
"""ctest k8s.wrong_objects: check_objects.py refuses deliberately wrong objects, each with a
message that names the field, and accepts the valid objects they were made from (so a refusal
is the mistake's, not the checker's).

  wrong_objects_test.py SOURCE_DIR WORK_DIR
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_objects  # noqa: E402
import rules  # noqa: E402

KUEUE = "apiVersion: kueue.x-k8s.io/v1beta2\n"
FLAVOR = KUEUE + """kind: ResourceFlavor
metadata: {name: spot-h100}
spec:
  nodeLabels: {nvidia.com/gpu.product: H100}
  nodeTaints: [{key: squeeze.dev/spot, value: "true", effect: NoSchedule}]
"""
CLUSTER_QUEUE = KUEUE + """kind: ClusterQueue
metadata: {name: team-vision}
spec:
  cohortName: squeeze-eu-west
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu, cpu]
    flavors:
    - name: owned-a100
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 16}
      - {name: cpu, nominalQuota: "256"}
  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}
"""
LOCAL_QUEUE = KUEUE + """kind: LocalQueue
metadata: {name: team-vision, namespace: vision}
spec: {clusterQueue: team-vision}
"""
PRIORITY = KUEUE + """kind: WorkloadPriorityClass
metadata: {name: squeeze-high}
value: 3000
"""
QUEUE = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: team-vision}
spec:
  weight: 16
  reclaimable: true
  deserved: {nvidia.com/gpu: 16}
  capability: {nvidia.com/gpu: 56}
"""
POD_PRIORITY = """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: squeeze-high}
value: 3000
preemptionPolicy: PreemptLowerPriority
"""
CONFIG_MAP = """apiVersion: v1
kind: ConfigMap
metadata: {name: volcano-scheduler-configmap, namespace: volcano-system}
data:
  volcano-scheduler.conf: |
    actions: "enqueue, allocate, preempt"
    tiers:
    - plugins:
      - name: priority
      - name: capacity
"""
TOPOLOGY = KUEUE + """kind: Topology
metadata: {name: squeeze}
spec:
  levels:
  - {nodeLabel: squeeze.dev/rack}
  - {nodeLabel: squeeze.dev/block}
  - {nodeLabel: kubernetes.io/hostname}
"""
TAS_FLAVOR = FLAVOR.replace("spec:\n", "spec:\n  topologyName: squeeze\n")
HYPERNODE = """apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: rack-r0}
spec:
  tier: 2
  tierName: rack
  members:
  - {type: HyperNode, selector: {exactMatch: {name: block-blk-0}}}
  - {type: HyperNode, selector: {exactMatch: {name: block-blk-1}}}
"""
BATCH_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: llm
  namespace: nlp
  labels: {kueue.x-k8s.io/queue-name: team-nlp}
spec:
  suspend: true
  parallelism: 2
  completions: 2
  completionMode: Indexed
  template:
    metadata:
      annotations: {kueue.x-k8s.io/podset-required-topology: squeeze.dev/rack}
    spec:
      restartPolicy: Never
      subdomain: llm
      containers:
      - name: train
        image: ghcr.io/ex/llm:v1
        command: [python, train.py]
        resources: {limits: {nvidia.com/gpu: 8}}
"""
SERVICE = """apiVersion: v1
kind: Service
metadata: {name: llm, namespace: nlp}
spec:
  clusterIP: None
  selector: {batch.kubernetes.io/job-name: llm}
  publishNotReadyAddresses: true
"""
VOLCANO_JOB = """apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: llm, namespace: nlp}
spec:
  schedulerName: volcano
  queue: team-nlp
  minAvailable: 2
  networkTopology: {mode: hard, highestTierAllowed: 2}
  plugins: {svc: [], env: []}
  tasks:
  - name: train
    replicas: 2
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: train
          image: ghcr.io/ex/llm:v1
          resources: {limits: {nvidia.com/gpu: 8}}
"""
VALID = [FLAVOR, CLUSTER_QUEUE, LOCAL_QUEUE, PRIORITY, QUEUE, POD_PRIORITY, CONFIG_MAP, TOPOLOGY,
         TAS_FLAVOR, HYPERNODE, BATCH_JOB, SERVICE, VOLCANO_JOB]

# (what is wrong, the object, [(field, words of the message)]).
WRONG = [
    ("an unknown field", CLUSTER_QUEUE.replace("nominalQuota: 16", "nominalQuotas: 16"),
     [("spec.resourceGroups[0].flavors[0].resources[0].nominalQuotas", "unknown field"),
      ("spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
       "required field is missing")]),
    ("a typo in spec", FLAVOR.replace("nodeLabels", "nodeLabel"),
     [("spec.nodeLabel", "unknown field 'nodeLabel' (strict field validation)")]),
    ("a typo in metadata",
     LOCAL_QUEUE.replace("namespace: vision", "namespace: vision, lables: {}"),
     [("metadata.lables", "unknown field")]),
    ("a string for an integer", QUEUE.replace("weight: 16", "weight: high"),
     [("spec.weight", "'high' is not of type integer")]),
    ("a string for a boolean", QUEUE.replace("reclaimable: true", "reclaimable: \"yes\""),
     [("spec.reclaimable", "'yes' is not of type boolean")]),
    ("a quota that is no quantity", CLUSTER_QUEUE.replace('"256"', "lots"),
     [("spec.resourceGroups[0].flavors[0].resources[1].nominalQuota", "'lots' is not a quantity")]),
    ("a value outside the enum", CLUSTER_QUEUE.replace("LowerPriority", "Sometimes"),
     [("spec.preemption.withinClusterQueue", "'Sometimes' is not one of")]),
    ("a missing required field", PRIORITY.replace("value: 3000\n", ""),
     [("value", "required field is missing")]),
    ("a missing flavor name", CLUSTER_QUEUE.replace("- name: owned-a100\n", "- resources:\n")
     .replace("      resources:\n", ""),
     [("spec.resourceGroups[0].flavors[0].name", "required field is missing")]),
    ("a bad name", LOCAL_QUEUE.replace("name: team-vision,", "name: Team_Vision,"),
     [("metadata.name", "'Team_Vision' is not a DNS-1123 subdomain")]),
    ("a LocalQueue without namespace", LOCAL_QUEUE.replace(", namespace: vision", ""),
     [("metadata.namespace", "a LocalQueue is namespaced")]),
    ("a cluster-scoped kind with a namespace", FLAVOR.replace("{name: spot-h100}",
                                                             "{name: spot-h100, namespace: x}"),
     [("metadata.namespace", "a ResourceFlavor is cluster-scoped")]),
    ("a deprecated version", FLAVOR.replace("v1beta2", "v1beta1"),
     [("apiVersion", "kueue.x-k8s.io/v1beta1 is deprecated for ResourceFlavor; use v1beta2")]),
    ("an unknown kind", FLAVOR.replace("ResourceFlavor", "ResourceFlavour"),
     [("kind", "unknown kind ResourceFlavour in kueue.x-k8s.io")]),
    ("a borrowing limit without cohort (CEL)", CLUSTER_QUEUE.replace(
        "  cohortName: squeeze-eu-west\n", "").replace("nominalQuota: 16}",
                                                         "nominalQuota: 16, borrowingLimit: 0}"),
     [("spec", "borrowingLimit must be nil when cohort is empty (CEL rule)")]),
    ("a flavor preference its defaults forbid (CEL)", CLUSTER_QUEUE.replace(
        "  preemption:",
        "  flavorFungibility: {preference: BorrowingOverPreemption}\n  preemption:"),
     [("spec.flavorFungibility", "preference can only be set when both whenCanBorrow and "
       "whenCanPreempt are TryNextFlavor (CEL rule)")]),
    ("resources out of coveredResources' order", CLUSTER_QUEUE.replace(
        "[nvidia.com/gpu, cpu]", "[cpu, nvidia.com/gpu]"),
     [("spec.resourceGroups[0].flavors[0].resources", "differ from coveredResources")]),
    ("a spot taint of an unknown effect (CEL)", FLAVOR.replace("NoSchedule", "NoWay"),
     [("spec.nodeTaints", "supported taint effect values")]),
    ("deserved above capability", QUEUE.replace("{nvidia.com/gpu: 56}", "{nvidia.com/gpu: 8}"),
     [("spec.deserved.nvidia.com/gpu", "16 above its capability 8")]),
    ("a priority above the users' range", POD_PRIORITY.replace("3000", "2000000000"),
     [("value", "above 1000000000")]),
    ("an unknown preemption policy", POD_PRIORITY.replace("PreemptLowerPriority", "Always"),
     [("preemptionPolicy", "'Always' is not one of")]),
    ("an unknown Volcano plugin", CONFIG_MAP.replace("name: capacity", "name: capacities"),
     [("data.volcano-scheduler.conf.tiers[0].plugins[1].name", "unknown plugin 'capacities'")]),
    ("an unknown Volcano action", CONFIG_MAP.replace("preempt\"", "preemption\""),
     [("data.volcano-scheduler.conf.actions", "unknown action 'preemption'")]),
    ("the hostname level not last (CEL)", TOPOLOGY.replace(
        "  - {nodeLabel: kubernetes.io/hostname}\n", "").replace(
        "  - {nodeLabel: squeeze.dev/rack}\n",
        "  - {nodeLabel: kubernetes.io/hostname}\n  - {nodeLabel: squeeze.dev/rack}\n"),
     [("spec.levels", "kubernetes.io/hostname label can only be used at the lowest level")]),
    ("a topology level twice (CEL)", TOPOLOGY.replace("squeeze.dev/rack", "squeeze.dev/block"),
     [("spec.levels", "must be unique (CEL rule)")]),
    ("a Topology without levels", TOPOLOGY.split("  levels:")[0] + "  levels: []\n",
     [("spec.levels", "[] ")]),  # "is too short" or "should be non-empty", by jsonschema's version
    ("a TAS flavor without node labels (CEL)", TAS_FLAVOR.replace(
        "  nodeLabels: {nvidia.com/gpu.product: H100}\n", ""),
     [("spec", "at least one nodeLabel is required when topology is set")]),
    ("a HyperNode member of an unknown type", HYPERNODE.replace("type: HyperNode,", "type: Rack,", 1),
     [("spec.members[0].type", "'Rack' is not one of")]),
    ("a HyperNode member with two selectors (CEL)", HYPERNODE.replace(
        "exactMatch: {name: block-blk-0}", "exactMatch: {name: block-blk-0}, "
        "regexMatch: {pattern: block-.*}"),
     [("spec.members[0].selector", "Only one of ExactMatch, RegexMatch, or LabelMatch")]),
    ("a HyperNode without a tier", HYPERNODE.replace("  tier: 2\n", ""),
     [("spec.tier", "required field is missing")]),
    ("a Job whose pods restart Always", BATCH_JOB.replace("restartPolicy: Never",
                                                          "restartPolicy: Always"),
     [("spec.template.spec.restartPolicy", "Never or OnFailure")]),
    ("a typo in a Job's container", BATCH_JOB.replace("command:", "commands:"),
     [("spec.template.spec.containers[0].commands", "unknown field")]),
    ("a Job without its pod template", BATCH_JOB.split("  template:")[0],
     [("spec.template", "required field is missing")]),
    ("an Indexed Job without completions", BATCH_JOB.replace("  completions: 2\n", ""),
     [("spec.completions", "an Indexed Job needs completions")]),
    ("a string for a Job's parallelism", BATCH_JOB.replace("parallelism: 2", "parallelism: two"),
     [("spec.parallelism", "'two' is not of type integer")]),
    ("half a GPU", BATCH_JOB.replace("nvidia.com/gpu: 8", "nvidia.com/gpu: 500m"),
     [("spec.template.spec.containers[0].resources.limits", "not a whole number of GPUs")]),
    ("a headless Service of an unknown type", SERVICE.replace("clusterIP: None",
                                                              "type: Headless"),
     [("spec.type", "'Headless' is not one of")]),
    ("a Volcano gang larger than its pods", VOLCANO_JOB.replace("minAvailable: 2",
                                                                "minAvailable: 3"),
     [("spec.minAvailable", "3 is more than the tasks' 2 replicas")]),
    ("an unknown network topology mode", VOLCANO_JOB.replace("mode: hard", "mode: strict"),
     [("spec.networkTopology.mode", "'strict' is not one of")]),
    ("a key given twice", FLAVOR.replace("metadata: {name: spot-h100}",
                                         "metadata: {name: spot-h100}\nmetadata: {name: x}"),
     [("", "duplicate field 'metadata'")]),
]


def check(text, path, catalog, tally):
    with open(path, "w") as f:
        f.write(text)
    return check_objects.check_file(path, catalog, tally)[1]


def main(source, work):
    os.makedirs(work, exist_ok=True)
    catalog = check_objects.Catalog(os.path.join(source, "third_party", "k8s-crds"))
    tally = rules.CelTally()
    failed = 0
    for i, text in enumerate(VALID):
        problems = check(text, os.path.join(work, "valid-%d.yaml" % i), catalog, tally)
        if problems:
            failed += 1
            print("FAIL: a valid object was refused:\n  " + "\n  ".join(problems))
    for i, (what, text, expected) in enumerate(WRONG):
        problems = check(text, os.path.join(work, "wrong-%d.yaml" % i), catalog, tally)
        missing = [(field, words) for field, words in expected
                   if not any(("%s: %s" % (field, "") in p or not field) and words in p
                              for p in problems)]
        if missing or not problems:
            failed += 1
            print("FAIL: %s: expected %s, got:\n  %s" % (what, missing or expected,
                                                        "\n  ".join(problems) or "(valid)"))
        else:
            print("refused %s: %s" % (what, problems[0].split(": ", 1)[1]))
    print("%d valid objects accepted, %d wrong ones refused naming the field; %s"
          % (len(VALID), len(WRONG) - failed, tally.line()))
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
