"""The checks an API server makes that a JSON Schema does not: names, the CEL rules of the CRDs
(x-kubernetes-validations) that squeeze's objects reach, map-list keys, and the rules Kueue's
and Volcano's admission webhooks and the core kinds' validation apply to what squeeze writes.

Each CEL rule is evaluated by a hand-written Python function chosen by the rule's exact text;
rules about updates (they read oldSelf) do not apply to a create; a rule with no function is
counted as not evaluated and named in the report, never taken as met.
"""

import re
from decimal import Decimal

from openapi import dotted, walk

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LABEL_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
CONFIG_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
QUANTITY = re.compile(r"^([+-]?[0-9.]+)([eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE])?$")
_SUFFIX = {"": 1, "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"),
           "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
           "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}


def quantity(value):
    """A Kubernetes quantity (int or string) as a Decimal; ValueError if it is none."""
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, int):
        return Decimal(value)
    m = QUANTITY.match(str(value))
    if not m:
        raise ValueError(value)
    number, suffix = Decimal(m.group(1)), m.group(2) or ""
    if suffix[:1] in ("e", "E"):
        return number * Decimal(10) ** int(suffix[1:])
    return number * Decimal(_SUFFIX[suffix])


def _has(obj, key):
    return isinstance(obj, dict) and key in obj


def _no_borrowing_limit(s):
    return all(not _has(r, "borrowingLimit") for rg in s.get("resourceGroups", [])
               for f in rg.get("flavors", []) for r in f.get("resources", []))


def _one_selector(s):
    return sum(_has(s, k) for k in ("exactMatch", "regexMatch", "labelMatch"))


def _unique(items):
    return all(items.count(i) == 1 for i in items)


# The CEL rules of the Kueue and Volcano CRDs that a create can reach, by their text
# (whitespace folded).
CEL = {
    # Topology (kueue.x-k8s.io): its levels.
    "size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0": _unique,
    "size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || "
    "self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname'":
        lambda s: all(x.get("nodeLabel") != "kubernetes.io/hostname" for x in s)
        or s[-1].get("nodeLabel") == "kubernetes.io/hostname",
    # HyperNode (topology.volcano.sh): a member's selector.
    "has(self.exactMatch) || has(self.regexMatch) || has(self.labelMatch)":
        lambda s: _one_selector(s) >= 1,
    "(has(self.exactMatch) ? 1 : 0) + (has(self.regexMatch) ? 1 : 0) + "
    "(has(self.labelMatch) ? 1 : 0) <= 1":
        lambda s: _one_selector(s) <= 1,
    "!has(self.cohortName) && has(self.resourceGroups) ? self.resourceGroups.all(rg, "
    "rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true":
        lambda s: _has(s, "cohortName") or not _has(s, "resourceGroups") or _no_borrowing_limit(s),
    "!has(self.preference) || (self.whenCanBorrow == 'TryNextFlavor' && self.whenCanPreempt == "
    "'TryNextFlavor')":
        lambda s: not _has(s, "preference") or (s.get("whenCanBorrow") == "TryNextFlavor"
                                                and s.get("whenCanPreempt") == "TryNextFlavor"),
    "!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) && "
    "self.borrowWithinCohort.policy != 'Never')":
        lambda s: not (s.get("reclaimWithinCohort") == "Never" and _has(s, "borrowWithinCohort")
                       and s["borrowWithinCohort"].get("policy") != "Never"),
    "self.flavors.all(x, size(x.resources) == size(self.coveredResources))":
        lambda s: all(len(x.get("resources", [])) == len(s.get("coveredResources", []))
                      for x in s.get("flavors", [])),
    "!has(self.topologyName) || self.nodeLabels.size() >= 1":
        lambda s: not _has(s, "topologyName") or len(s.get("nodeLabels", {})) >= 1,
    "self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])":
        lambda s: all(x.get("effect") in ("NoSchedule", "PreferNoSchedule", "NoExecute")
                      for x in s),
    "self.all(x, !has(x.key) ? x.operator == 'Exists' : true)":
        lambda s: all(_has(x, "key") or x.get("operator") == "Exists" for x in s),
    "self.all(x, has(x.tolerationSeconds) ? x.effect == 'NoExecute' : true)":
        lambda s: all(not _has(x, "tolerationSeconds") or x.get("effect") == "NoExecute"
                      for x in s),
    "self.all(x, !has(x.operator) || x.operator in ['Equal', 'Exists'])":
        lambda s: all(not _has(x, "operator") or x["operator"] in ("Equal", "Exists") for x in s),
    "self.all(x, has(x.operator) && x.operator == 'Exists' ? !has(x.value) : true)":
        lambda s: all(x.get("operator") != "Exists" or not _has(x, "value") for x in s),
    "self.all(x, !has(x.effect) || x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])":
        lambda s: all(not _has(x, "effect") or x["effect"] in ("NoSchedule", "PreferNoSchedule",
                                                                "NoExecute") for x in s),
}


def _fold(rule):
    return " ".join(rule.split())


class CelTally:
    """How the CEL rules the objects reached were dealt with."""

    def __init__(self):
        self.evaluated = 0
        self.transition = 0
        self.unevaluated = {}  # rule message -> times

    def line(self):
        text = ("CEL rules reached: %d evaluated by hand, %d transition rules (updates only), "
                "%d not evaluated" % (self.evaluated, self.transition,
                                      sum(self.unevaluated.values())))
        if self.unevaluated:
            text += " (" + "; ".join(sorted(self.unevaluated)) + ")"
        return text


def cel_problems(obj, schema, tally):
    """The CEL rules of `schema` that `obj` breaks, as (path, message)."""
    problems = []

    def visit(instance, node, path):
        for rule in node.get("x-kubernetes-validations", []):
            text = _fold(rule["rule"])
            if "oldSelf" in text:
                tally.transition += 1
            elif text in CEL:
                tally.evaluated += 1
                if not CEL[text](instance):
                    problems.append((dotted(path), rule.get("message", text) + " (CEL rule)"))
            else:
                message = rule.get("message", text)
                tally.unevaluated[message] = tally.unevaluated.get(message, 0) + 1
        keys = node.get("x-kubernetes-list-map-keys")
        if node.get("x-kubernetes-list-type") == "map" and keys and isinstance(instance, list):
            seen = set()
            for i, item in enumerate(instance):
                key = tuple(str(item.get(k)) for k in keys) if isinstance(item, dict) else None
                if key in seen:
                    problems.append((dotted(path + [i]), "duplicate entry for key %s=%s"
                                     % (",".join(keys), ",".join(key))))
                seen.add(key)

    walk(obj, schema, [], visit)
    return problems
