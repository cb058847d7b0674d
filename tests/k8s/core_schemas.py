"""Schemas, in the CRDs' OpenAPI v3 form, for the Kubernetes kinds that have no CRD file.

Written by hand from the Kubernetes API reference (v1.31: ObjectMeta in meta/v1,
PriorityClass in scheduling.k8s.io/v1, ConfigMap and Service in core/v1, Job in batch/v1),
with only the fields those pages list; the API server's own validation rules that matter to
squeeze's objects are checked in semantics.py (a PriorityClass value of at most one billion,
ConfigMap keys, a Job's restartPolicy and completions). A Job's pod template is the
PodTemplateSpec schema that Volcano's Job CRD carries (generated from Kubernetes' core/v1
types, the same for every kind that holds a pod template): batch_job() takes it from there.
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

_INT32 = {"type": "integer", "format": "int32"}
_INT64 = {"type": "integer", "format": "int64"}
_OBJECT = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}

SERVICE = {
    "type": "object",
    "properties": dict(
        _TYPE_META,
        spec={
            "type": "object",
            "properties": {
                "type": {"type": "string",
                         "enum": ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"]},
                "clusterIP": _STRING,
                "clusterIPs": {"type": "array", "items": _STRING},
                "selector": _STRING_MAP,
                "ports": {"type": "array", "items": {
                    "type": "object",
                    "required": ["port"],
                    "properties": {
                        "name": _STRING,
                        "protocol": {"type": "string", "enum": ["TCP", "UDP", "SCTP"]},
                        "appProtocol": _STRING,
                        "port": _INT32,
                        "targetPort": {"x-kubernetes-int-or-string": True},
                        "nodePort": _INT32,
                    },
                }},
                "publishNotReadyAddresses": {"type": "boolean"},
                "sessionAffinity": {"type": "string", "enum": ["ClientIP", "None"]},
                "sessionAffinityConfig": _OBJECT,
                "externalIPs": {"type": "array", "items": _STRING},
                "externalName": _STRING,
                "externalTrafficPolicy": {"type": "string", "enum": ["Cluster", "Local"]},
                "internalTrafficPolicy": {"type": "string", "enum": ["Cluster", "Local"]},
                "healthCheckNodePort": _INT32,
                "ipFamilies": {"type": "array", "items": _STRING},
                "ipFamilyPolicy": {"type": "string", "enum": [
                    "SingleStack", "PreferDualStack", "RequireDualStack"]},
                "loadBalancerIP": _STRING,
                "loadBalancerClass": _STRING,
                "loadBalancerSourceRanges": {"type": "array", "items": _STRING},
                "allocateLoadBalancerNodePorts": {"type": "boolean"},
                "trafficDistribution": _STRING,
            },
        },
        status=_OBJECT,
    ),
}


def batch_job(pod_template):
    """The batch/v1 Job schema around `pod_template` (a PodTemplateSpec schema)."""
    return {
        "type": "object",
        "properties": dict(
            _TYPE_META,
            spec={
                "type": "object",
                "required": ["template"],
                "properties": {
                    "activeDeadlineSeconds": _INT64,
                    "backoffLimit": _INT32,
                    "backoffLimitPerIndex": _INT32,
                    "completionMode": {"type": "string", "enum": ["NonIndexed", "Indexed"]},
                    "completions": _INT32,
                    "managedBy": _STRING,
                    "manualSelector": {"type": "boolean"},
                    "maxFailedIndexes": _INT32,
                    "parallelism": _INT32,
                    "podFailurePolicy": _OBJECT,
                    "podReplacementPolicy": {"type": "string",
                                             "enum": ["TerminatingOrFailed", "Failed"]},
                    "selector": _OBJECT,
                    "successPolicy": _OBJECT,
                    "suspend": {"type": "boolean"},
                    "template": pod_template,
                    "ttlSecondsAfterFinished": _INT32,
                },
            },
            status=_OBJECT,
        ),
    }


# (group, version, kind, scope, schema), as a CRD would give them.
CORE_KINDS = [
    ("scheduling.k8s.io", "v1", "PriorityClass", "Cluster", PRIORITY_CLASS),
    ("", "v1", "ConfigMap", "Namespaced", CONFIG_MAP),
    ("", "v1", "Service", "Namespaced", SERVICE),
]

# The CRD whose pod template batch/v1 Job takes: (group, kind, path to the template).
POD_TEMPLATE_SOURCE = ("batch.volcano.sh", "Job",
                       ("properties", "spec", "properties", "tasks", "items", "properties",
                        "template"))
