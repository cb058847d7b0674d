"""A CRD's OpenAPI v3 schema as the JSON Schema jsonschema validates, made strict.

The API server validates a custom resource against its structural schema and, with strict
field validation (kubectl --validate=strict, the default of kubectl 1.27+ and of server-side
apply), refuses any field the schema does not declare. Here:
- an object schema that declares properties, or none at all, gets additionalProperties: false
  unless it says x-kubernetes-preserve-unknown-fields (or gives additionalProperties itself);
- nullable: true admits null; x-kubernetes-int-or-string admits an integer or a string;
- formats int32 and int64 bound integers; int-or-string, quantity and the others are left to
  the patterns the schemas carry;
- x-kubernetes-embedded-resource objects also take apiVersion, kind and metadata;
- x-kubernetes-list-type: set lists must be unique (map lists are checked in rules.py).
CEL rules (x-kubernetes-validations) cannot be evaluated by jsonschema; rules.py walks them.
"""

import copy

_INT_BOUNDS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_COPIED = ("enum", "pattern", "minimum", "maximum", "minLength", "maxLength", "minItems",
           "maxItems", "uniqueItems", "minProperties", "maxProperties", "required")


def to_json_schema(node):
    """The strict JSON Schema for one OpenAPI v3 schema node."""
    if not isinstance(node, dict):
        return node
    out = {k: copy.deepcopy(node[k]) for k in _COPIED if k in node}
    for key in ("exclusiveMinimum", "exclusiveMaximum"):
        if node.get(key) is True:  # OpenAPI 3.0 form: a flag on minimum / maximum
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            out[key] = out.pop(bound)
    for key in ("anyOf", "allOf", "oneOf"):
        if key in node:
            out[key] = [to_json_schema(s) for s in node[key]]
    if "not" in node:
        out["not"] = to_json_schema(node["not"])
    if node.get("x-kubernetes-int-or-string"):
        out.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
    elif "type" in node:
        out["type"] = [node["type"], "null"] if node.get("nullable") else node["type"]
    if node.get("format") in _INT_BOUNDS and node.get("type") == "integer":
        low, high = _INT_BOUNDS[node["format"]]
        out.setdefault("minimum", low)
        out.setdefault("maximum", high)
    if node.get("x-kubernetes-list-type") == "set":
        out["uniqueItems"] = True
    if "items" in node:
        out["items"] = to_json_schema(node["items"])
    if node.get("type") == "object" or "properties" in node:
        _object(node, out)
    return out


def _object(node, out):
    props = dict(node.get("properties", {}))
    if node.get("x-kubernetes-embedded-resource"):
        for name in ("apiVersion", "kind"):
            props.setdefault(name, {"type": "string"})
        props.setdefault("metadata", {"type": "object",
                                      "x-kubernetes-preserve-unknown-fields": True})
    if props:
        out["properties"] = {k: to_json_schema(v) for k, v in props.items()}
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        out["additionalProperties"] = to_json_schema(extra)
    elif extra is not None:
        out["additionalProperties"] = extra
    elif not node.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False


def apply_defaults(instance, node):
    """Fills in the schema's defaults, as the API server does before it validates."""
    if not isinstance(node, dict):
        return
    if isinstance(instance, dict):
        for name, prop in node.get("properties", {}).items():
            if name not in instance and "default" in prop:
                instance[name] = copy.deepcopy(prop["default"])
            if name in instance:
                apply_defaults(instance[name], prop)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            for value in instance.values():
                apply_defaults(value, extra)
    elif isinstance(instance, list) and "items" in node:
        for item in instance:
            apply_defaults(item, node["items"])


def walk(instance, node, path, visit):
    """Calls visit(instance, node, path) on every schema node the instance reaches."""
    if not isinstance(node, dict):
        return
    visit(instance, node, path)
    if isinstance(instance, dict):
        for name, prop in node.get("properties", {}).items():
            if name in instance:
                walk(instance[name], prop, path + [name], visit)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            for name, value in instance.items():
                walk(value, extra, path + [name], visit)
    elif isinstance(instance, list) and "items" in node:
        for i, item in enumerate(instance):
            walk(item, node["items"], path + [i], visit)


def count_rules(node):
    """How many x-kubernetes-validations rules a schema holds in all."""
    if isinstance(node, dict):
        return len(node.get("x-kubernetes-validations", [])) + sum(
            count_rules(v) for v in node.values())
    if isinstance(node, list):
        return sum(count_rules(v) for v in node)
    return 0


def dotted(path):
    """["spec", "flavors", 0, "name"] -> "spec.flavors[0].name"."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += "[%d]" % part
        else:
            out += ("." if out else "") + str(part)
    return out or "(object)"
