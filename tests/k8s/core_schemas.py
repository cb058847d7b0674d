"""Schemas, in the CRDs' OpenAPI v3 form, for the Kubernetes kinds that have no CRD file.

Written by hand from the Kubernetes API reference (v1.31: ObjectMeta in meta/v1,
PriorityClass in scheduling.k8s.io/v1, ConfigMap in core/v1), with only the fields those
pages list; the API server's own validation rules that matter to squeeze's objects are
checked in rules.py (a PriorityClass value of at most one billion, ConfigMap keys).
"""

_STRING = {"type": "string"}
_STRING_MAP = {"type": "object", "additionalProperties": _STRING}

OBJECT_META = {
    "type": "object",
    "properties": {
        "name": _STRING,
        "generateName": _STRING,
        "namespace": _STRING,
        "labels": _STRING_MAP,
        "annotations": _STRING_MAP,
        "finalizers": {"type": "array", "items": _STRING},
        "ownerReferences": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["apiVersion", "kind", "name", "uid"],
                "properties": {
                    "apiVersion": _STRING,
                    "kind": _STRING,
                    "name": _STRING,
                    "uid": _STRING,
                    "controller": {"type": "boolean"},
                    "blockOwnerDeletion": {"type": "boolean"},
                },
            },
        },
        "uid": _STRING,
        "resourceVersion": _STRING,
        "generation": {"type": "integer", "format": "int64"},
        "creationTimestamp": {"type": "string", "nullable": True},
        "deletionTimestamp": {"type": "string", "nullable": True},
        "deletionGracePeriodSeconds": {"type": "integer", "format": "int64"},
        "selfLink": _STRING,
        "managedFields": {
            "type": "array",
            "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        },
    },
}

_TYPE_META = {"apiVersion": _STRING, "kind": _STRING, "metadata": {"type": "object"}}

PRIORITY_CLASS = {
    "type": "object",
    "required": ["value"],
    "properties": dict(
        _TYPE_META,
        value={"type": "integer", "format": "int32"},
        globalDefault={"type": "boolean"},
        description=_STRING,
        preemptionPolicy={"type": "string", "enum": ["Never", "PreemptLowerPriority"]},
    ),
}

CONFIG_MAP = {
    "type": "object",
    "properties": dict(
        _TYPE_META,
        data=_STRING_MAP,
        binaryData=_STRING_MAP,
        immutable={"type": "boolean"},
    ),
}

# (group, version, kind, scope, schema), as a CRD would give them.
CORE_KINDS = [
    ("scheduling.k8s.io", "v1", "PriorityClass", "Cluster", PRIORITY_CLASS),
    ("", "v1", "ConfigMap", "Namespaced", CONFIG_MAP),
]
