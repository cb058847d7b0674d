// The parts every object `squeeze export` writes shares: metadata with the label that says
// squeeze made it, apiVersion and kind, wrapped comment lines above it. Pure.
#ifndef SQUEEZE_EXPORT_K8S_OBJECT_H_
#define SQUEEZE_EXPORT_K8S_OBJECT_H_

#include <string>

#include "export/k8s_yaml.h"

namespace squeeze {

// Comment lines are wrapped to this width.
inline constexpr size_t kCommentWidth = 98;

// name, namespace (when not empty) and the label app.kubernetes.io/managed-by: squeeze.
YamlValue K8sMetadata(const std::string& name, const std::string& ns = "");

// A document with apiVersion, kind and `metadata`; the caller adds the rest.
YamlDocument K8sObject(const std::string& api_version, const std::string& kind,
                       YamlValue metadata);

// Appends `text` to the document's comments, wrapped.
void AddComment(YamlDocument& doc, const std::string& text);

// Appends `text` to `lines`, wrapped; with `bullet`, as a "- " item.
void AddWrapped(std::vector<std::string>& lines, const std::string& text, bool bullet = false);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_K8S_OBJECT_H_
