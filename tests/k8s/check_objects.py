#!/usr/bin/python3
"""Checks Kubernetes objects (YAML files of `---` documents) as an API server with strict field
validation would accept or refuse them, without one: apiVersion and kind known and served (and
not deprecated), metadata.name and namespace as the kind needs, the body against the kind's
openAPIV3Schema from the CRD files (made strict: openapi.py), the CRDs' CEL rules the objects
reach and the admission webhooks' rules (rules.py, semantics.py). Every problem names the field.

  check_objects.py [--crds DIR] FILE...

DIR defaults to third_party/k8s-crds; the core kinds without a CRD are in core_schemas.py.
Exit 0 when every object is valid, 1 otherwise. Debian's python3-yaml and python3-jsonschema.
"""

import argparse
import copy
import glob
import os
import sys

import jsonschema
import yaml

import openapi
import rules
import semantics
from core_schemas import CORE_KINDS, OBJECT_META, POD_TEMPLATE_SOURCE, batch_job

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CRDS = os.path.join(HERE, "..", "..", "third_party", "k8s-crds")


class _StrictLoader(yaml.SafeLoader):
    """A YAML loader that refuses a key given twice in one map, as strict decoding does."""


def _mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, "duplicate field %r" % (key,), key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


class Catalog:
    """The kinds the checker knows: (group, kind) -> scope, versions, schemas, CEL rule counts."""

    def __init__(self, crd_dir=DEFAULT_CRDS):
        self.kinds = {}
        for path in sorted(glob.glob(os.path.join(crd_dir, "**", "*.yaml"), recursive=True)):
            with open(path) as f:
                for crd in yaml.safe_load_all(f):
                    if crd and crd.get("kind") == "CustomResourceDefinition":
                        self._add_crd(crd)
        for group, version, kind, scope, schema in CORE_KINDS:
            self._add_core(group, version, kind, scope, schema)
        source = self.kinds.get(POD_TEMPLATE_SOURCE[:2])
        if source is not None:
            template = next(v["schema"] for v in source["versions"].values() if v["served"])
            for key in POD_TEMPLATE_SOURCE[2]:
                template = template[key]
            self._add_core("batch", "v1", "Job", "Namespaced", batch_job(template))
        self._validators = {}

    def _add_core(self, group, version, kind, scope, schema):
        self.kinds[(group, kind)] = {"scope": scope, "versions": {
            version: {"served": True, "deprecated": False, "schema": schema}}}

    def _add_crd(self, crd):
        spec = crd["spec"]
        versions = {}
        for v in spec["versions"]:
            versions[v["name"]] = {"served": v.get("served", False),
                                   "deprecated": v.get("deprecated", False),
                                   "schema": v["schema"]["openAPIV3Schema"]}
        self.kinds[(spec["group"], spec["names"]["kind"])] = {"scope": spec["scope"],
                                                              "versions": versions}

    def resolve(self, api_version, kind):
        """(kind entry, schema, []) or (None, None, problems)."""
        if not isinstance(api_version, str) or not isinstance(kind, str):
            return None, None, [("apiVersion", "apiVersion and kind must be strings")]
        group, _, version = api_version.rpartition("/")
        entry = self.kinds.get((group, kind))
        if entry is None:
            known = sorted("%s/%s" % (g or "core", k) for g, k in self.kinds)
            return None, None, [("kind", "unknown kind %s in %s (known: %s)"
                                 % (kind, group or "core", ", ".join(known)))]
        v = entry["versions"].get(version)
        served = sorted(n for n, x in entry["versions"].items() if x["served"])
        if v is None or not v["served"]:
            return None, None, [("apiVersion", "%s is not served for %s (served: %s)"
                                 % (api_version, kind, ", ".join(served)))]
        if v["deprecated"]:
            newest = [n for n in served if not entry["versions"][n]["deprecated"]]
            return None, None, [("apiVersion", "%s is deprecated for %s; use %s"
                                 % (api_version, kind, ", ".join(newest)))]
        schema = copy.deepcopy(v["schema"])
        schema.setdefault("properties", {})["metadata"] = OBJECT_META
        return entry, schema, []

    def validator(self, api_version, kind, schema):
        key = (api_version, kind)
        if key not in self._validators:
            self._validators[key] = jsonschema.Draft7Validator(openapi.to_json_schema(schema))
        return self._validators[key]


def _short(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _schema_problems(err):
    path = list(err.absolute_path)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        declared = set(err.schema.get("properties", {}))
        return [(openapi.dotted(path + [k]), "unknown field %r (strict field validation)" % k)
                for k in sorted(set(err.instance) - declared)]
    if err.validator == "required" and isinstance(err.instance, dict):
        return [(openapi.dotted(path + [k]), "required field is missing")
                for k in err.validator_value if k not in err.instance]
    if err.validator == "type":
        return [(openapi.dotted(path), "%s is not of type %s" % (_short(err.instance),
                                                                 err.validator_value))]
    if err.validator == "pattern" and "[KMGTPE]i" in err.validator_value:
        return [(openapi.dotted(path), "%s is not a quantity" % _short(err.instance))]
    if err.validator == "anyOf":
        return [(openapi.dotted(path), "%s is not an integer or a quantity string"
                 % _short(err.instance))]
    return [(openapi.dotted(path), err.message)]


def check_object(obj, catalog, tally):
    """The problems of one object, as (path, message), sorted."""
    if not isinstance(obj, dict):
        return [("(document)", "not a map")]
    entry, schema, problems = catalog.resolve(obj.get("apiVersion"), obj.get("kind"))
    if entry is None:
        return problems
    instance = copy.deepcopy(obj)
    openapi.apply_defaults(instance, schema)
    validator = catalog.validator(obj["apiVersion"], obj["kind"], schema)
    for err in validator.iter_errors(instance):
        problems += _schema_problems(err)
    problems += semantics.name_problems(obj, entry["scope"])
    problems += rules.cel_problems(instance, schema, tally)
    if not problems:
        problems += semantics.kind_problems(instance)
    return sorted(set(problems))


def object_label(obj):
    if not isinstance(obj, dict):
        return "?"
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name", "?")
    return "%s %s" % (obj.get("kind", "?"), "%s/%s" % (meta["namespace"], name)
                      if meta.get("namespace") else name)


def load_documents(path):
    """The non-empty documents of a YAML file; raises yaml.YAMLError on bad YAML."""
    with open(path) as f:
        return [d for d in yaml.load_all(f, Loader=_StrictLoader) if d is not None]


def check_file(path, catalog, tally):
    """(objects, problems): the documents and one line per problem."""
    try:
        docs = load_documents(path)
    except yaml.YAMLError as e:
        return [], ["%s: YAML: %s" % (path, " ".join(str(e).split()))]
    lines, seen = [], {}
    for i, obj in enumerate(docs, 1):
        label = object_label(obj)
        for where, message in check_object(obj, catalog, tally):
            lines.append("%s: document %d (%s): %s: %s" % (path, i, label, where, message))
        if label in seen:
            lines.append("%s: document %d (%s): the same object as document %d"
                         % (path, i, label, seen[label]))
        seen.setdefault(label, i)
    return docs, lines


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crds", default=DEFAULT_CRDS, help="folder of CRD YAML files")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    catalog = Catalog(args.crds)
    tally = rules.CelTally()
    bad = 0
    for path in args.files:
        docs, problems = check_file(path, catalog, tally)
        for line in problems:
            print(line)
        if problems:
            bad += 1
            continue
        kinds = {}
        for d in docs:
            kinds[d["kind"]] = kinds.get(d["kind"], 0) + 1
        print("%s: %d %s valid (%s)" % (path, len(docs), "object" if len(docs) == 1 else
                                         "objects", ", ".join(
            "%s %d" % (k, n) for k, n in sorted(kinds.items()))))
    print(tally.line())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
