"""Checks beyond the schemas, as the API server and the projects' admission webhooks make them:
- names: metadata.name a DNS-1123 subdomain (a LocalQueue's also a label, as jobs name it in
  one), a namespace exactly where the kind is namespaced, label and annotation syntax;
- Kueue's ClusterQueue webhook: a flavor once per ClusterQueue, each flavor's resources named as
  coveredResources in the same order, quotas and limits not negative;
- Volcano's Queue webhook: capability >= deserved >= guarantee, resource by resource;
- PriorityClass: value at most 1,000,000,000 (above is for system classes), no system- name;
- ConfigMap: key syntax, and Volcano's scheduler configuration: known top-level keys, actions
  and plugins, plugin options as Volcano's PluginOption (pkg/scheduler/conf) names them, not
  both capacity and proportion;
- Jobs (batch/v1, and Volcano's webhook for its own): pods that restart Never or OnFailure, at
  least one container and no name twice, whole GPUs, an Indexed Job's completions, Volcano's
  minAvailable at most the tasks' replicas.
Each returns (path, message) pairs.
"""

import yaml

from rules import CONFIG_KEY, DNS_LABEL, DNS_SUBDOMAIN, LABEL_NAME, quantity

VOLCANO_ACTIONS = {"enqueue", "allocate", "backfill", "preempt", "reclaim", "shuffle"}
VOLCANO_PLUGINS = {"binpack", "capacity", "cdp", "conformance", "deviceshare", "drf", "extender",
                   "gang", "network-topology-aware", "nodegroup", "nodeorder", "numaaware",
                   "overcommit", "pdb", "predicates", "priority", "proportion", "rescheduling",
                   "resource-strategy-fit", "resourcequota", "sla", "task-topology", "tdm",
                   "usage"}
PLUGIN_OPTIONS = {"name", "enableJobOrder", "enableNamespaceOrder", "enableHierarchy",
                  "enableJobReady", "enableJobPipelined", "enableTaskOrder", "enablePreemptable",
                  "enableReclaimable", "enablePreemptive", "enableQueueOrder",
                  "enabledClusterOrder", "enablePredicate", "enableBestNode", "enableNodeOrder",
                  "enableJobEnqueued", "enabledVictim", "enableJobStarving", "arguments"}
VOLCANO_CONF_KEY = "volcano-scheduler.conf"


def _label_key_ok(key):
    prefix, _, name = key.rpartition("/")
    return (LABEL_NAME.match(name) is not None and len(name) <= 63
            and (not prefix or (DNS_SUBDOMAIN.match(prefix) is not None and len(prefix) <= 253)))


def name_problems(obj, scope):
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    out = []
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        out.append(("metadata.name", "required: every object squeeze writes is named"))
    elif not DNS_SUBDOMAIN.match(name) or len(name) > 253:
        out.append(("metadata.name", "'%s' is not a DNS-1123 subdomain (lower-case a-z, 0-9, "
                    "'-' and '.', at most 253)" % name))
    elif obj.get("kind") == "LocalQueue" and (not DNS_LABEL.match(name) or len(name) > 63):
        out.append(("metadata.name", "'%s' is not a DNS-1123 label: jobs name their LocalQueue "
                    "in the label kueue.x-k8s.io/queue-name" % name))
    ns = meta.get("namespace")
    if scope == "Namespaced":
        if not isinstance(ns, str) or not DNS_LABEL.match(ns):
            out.append(("metadata.namespace", "%r is not a namespace (a DNS-1123 label); "
                        "a %s is namespaced" % (ns, obj.get("kind"))))
    elif ns is not None:
        out.append(("metadata.namespace", "a %s is cluster-scoped: no namespace" % obj.get("kind")))
    for field in ("labels", "annotations"):
        for key, value in (meta.get(field) or {}).items():
            if not _label_key_ok(key):
                out.append(("metadata.%s" % field, "key '%s' is not a qualified name" % key))
            bad_value = not LABEL_NAME.match(str(value)) or len(str(value)) > 63
            if field == "labels" and value and bad_value:
                out.append(("metadata.labels.%s" % key, "'%s' is not a label value" % value))
    return out


def _quantities(obj, path):
    try:
        return {k: quantity(v) for k, v in (obj or {}).items()}, []
    except ValueError as e:
        return {}, [(path, "%r is not a quantity" % e.args[0])]


def _cluster_queue(spec):
    out, seen = [], set()
    for g, group in enumerate(spec.get("resourceGroups", [])):
        covered = group.get("coveredResources", [])
        for f, flavor in enumerate(group.get("flavors", [])):
            path = "spec.resourceGroups[%d].flavors[%d]" % (g, f)
            if flavor.get("name") in seen:
                out.append((path + ".name", "flavor '%s' appears twice" % flavor.get("name")))
            seen.add(flavor.get("name"))
            names = [r.get("name") for r in flavor.get("resources", [])]
            if names != covered:
                out.append((path + ".resources", "names %s differ from coveredResources %s"
                            % (names, covered)))
            for r, res in enumerate(flavor.get("resources", [])):
                for field in ("nominalQuota", "borrowingLimit", "lendingLimit"):
                    if field in res:
                        try:
                            if quantity(res[field]) < 0:
                                out.append(("%s.resources[%d].%s" % (path, r, field), "negative"))
                        except ValueError:
                            pass  # the schema's pattern reports it
    return out


def _volcano_queue(spec):
    cap, p1 = _quantities(spec.get("capability"), "spec.capability")
    des, p2 = _quantities(spec.get("deserved"), "spec.deserved")
    gua, p3 = _quantities((spec.get("guarantee") or {}).get("resource"), "spec.guarantee.resource")
    out = p1 + p2 + p3
    for lower, upper, what, limit in ((des, cap, "spec.deserved", "capability"),
                                      (gua, cap, "spec.guarantee.resource", "capability"),
                                      (gua, des, "spec.guarantee.resource", "deserved")):
        for res, amount in lower.items():
            if res in upper and amount > upper[res]:
                out.append(("%s.%s" % (what, res), "%s above its %s %s (Volcano's webhook: "
                            "capability >= deserved >= guarantee)" % (amount, limit, upper[res])))
    return out


def volcano_conf_problems(text, path):
    try:
        conf = yaml.safe_load(text)
    except yaml.YAMLError as e:
        return [(path, "not YAML: %s" % e)]
    if not isinstance(conf, dict):
        return [(path, "not a map")]
    out = [("%s.%s" % (path, k), "unknown key") for k in conf
           if k not in ("actions", "tiers", "configurations")]
    for action in str(conf.get("actions", "")).split(","):
        if action.strip() not in VOLCANO_ACTIONS:
            out.append(("%s.actions" % path, "unknown action '%s'" % action.strip()))
    names = []
    for t, tier in enumerate(conf.get("tiers") or []):
        for p, plugin in enumerate((tier or {}).get("plugins") or []):
            where = "%s.tiers[%d].plugins[%d]" % (path, t, p)
            names.append(plugin.get("name"))
            if plugin.get("name") not in VOLCANO_PLUGINS:
                out.append((where + ".name", "unknown plugin '%s'" % plugin.get("name")))
            out += [("%s.%s" % (where, k), "unknown plugin option") for k in plugin
                    if k not in PLUGIN_OPTIONS]
    if "capacity" in names and "proportion" in names:
        out.append((path + ".tiers", "capacity and proportion cannot be used together"))
    out += [(path + ".tiers", "plugin '%s' twice" % n) for n in set(names) if names.count(n) > 1]
    return out


def _config_map(obj):
    out = []
    for key, value in (obj.get("data") or {}).items():
        if not CONFIG_KEY.match(key) or len(key) > 253:
            out.append(("data.%s" % key, "not a valid ConfigMap key"))
        if key == VOLCANO_CONF_KEY:
            out += volcano_conf_problems(value, "data.%s" % key)
    return out


def _pod_template(template, path):
    """What the API server's validation of a pod template refuses in a job's pods."""
    out = []
    spec = (template or {}).get("spec") or {}
    if spec.get("restartPolicy") not in ("Never", "OnFailure"):
        out.append(("%s.spec.restartPolicy" % path,
                    "%r: a job's pods restart Never or OnFailure" % spec.get("restartPolicy")))
    for key in ((template or {}).get("metadata") or {}).get("annotations") or {}:
        if not _label_key_ok(key):
            out.append(("%s.metadata.annotations" % path, "%r is not a valid key" % key))
    names = set()
    for i, c in enumerate(spec.get("containers") or []):
        if c.get("name") in names:
            out.append(("%s.spec.containers[%d].name" % (path, i), "given twice"))
        names.add(c.get("name"))
        limits = (c.get("resources") or {}).get("limits") or {}
        gpus = limits.get("nvidia.com/gpu")
        amount = quantity(gpus) if gpus is not None else None
        if amount is not None and (amount != int(amount) or amount < 0):
            out.append(("%s.spec.containers[%d].resources.limits" % (path, i),
                        "nvidia.com/gpu %r is not a whole number of GPUs" % (gpus,)))
    if not spec.get("containers"):
        out.append(("%s.spec.containers" % path, "a pod needs a container"))
    return out


def _batch_job(spec):
    out = _pod_template(spec.get("template"), "spec.template")
    if spec.get("completionMode") == "Indexed" and not isinstance(spec.get("completions"), int):
        out.append(("spec.completions", "an Indexed Job needs completions"))
    for field in ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds"):
        if isinstance(spec.get(field), int) and spec[field] < (1 if field ==
                                                              "activeDeadlineSeconds" else 0):
            out.append(("spec.%s" % field, "%d is out of range" % spec[field]))
    return out


def _volcano_job(spec):
    out = []
    replicas = 0
    for i, task in enumerate(spec.get("tasks") or []):
        out += _pod_template(task.get("template"), "spec.tasks[%d].template" % i)
        replicas += task.get("replicas") or 0
    if isinstance(spec.get("minAvailable"), int) and spec["minAvailable"] > replicas:
        out.append(("spec.minAvailable", "%d is more than the tasks' %d replicas"
                    % (spec["minAvailable"], replicas)))
    return out


def kind_problems(obj):
    kind, spec = obj.get("kind"), obj.get("spec") or {}
    if kind == "ClusterQueue":
        return _cluster_queue(spec)
    if kind == "Queue":
        return _volcano_queue(spec)
    if kind == "PriorityClass":
        out = []
        if isinstance(obj.get("value"), int) and obj["value"] > 10**9:
            out.append(("value", "%d is above 1000000000, the highest a user may set"
                        % obj["value"]))
        if str((obj.get("metadata") or {}).get("name", "")).startswith("system-"):
            out.append(("metadata.name", "system- names are reserved"))
        return out
    if kind == "ConfigMap":
        return _config_map(obj)
    if kind == "Job":
        return _batch_job(spec) if obj.get("apiVersion") == "batch/v1" else _volcano_job(spec)
    return []
