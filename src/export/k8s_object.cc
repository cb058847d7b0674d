#include "export/k8s_object.h"

#include "export/node_labels.h"

namespace squeeze {

YamlValue K8sMetadata(const std::string& name, const std::string& ns) {
  YamlValue m = YamlValue::Map();
  m.Set("name", YamlValue::String(name));
  if (!ns.empty()) m.Set("namespace", YamlValue::String(ns));
  m.Set("labels", YamlValue::Map().Set(kManagedByLabel, YamlValue::String("squeeze")));
  return m;
}

YamlDocument K8sObject(const std::string& api_version, const std::string& kind,
                       YamlValue metadata) {
  YamlDocument doc;
  doc.body.Set("apiVersion", YamlValue::String(api_version));
  doc.body.Set("kind", YamlValue::String(kind));
  doc.body.Set("metadata", std::move(metadata));
  return doc;
}

void AddComment(YamlDocument& doc, const std::string& text) {
  AddWrapped(doc.comments, text);
}

void AddWrapped(std::vector<std::string>& lines, const std::string& text, bool bullet) {
  for (auto& line : WrapComment(text, kCommentWidth, bullet ? "- " : "", "  ")) {
    lines.push_back(line);
  }
}

}  // namespace squeeze
