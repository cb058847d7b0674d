// Reading YAML text that should hold one document (a job, a cluster, a scenario file) with
// yaml-cpp, whose LoadAll never returns on some broken text (yaml-cpp 0.7 hands out the same
// empty document forever for a stray ',': found by fuzz/fuzz_job.cc). Config-internal: the
// readers of config/ use it; yaml-cpp's exceptions pass through to them.
#ifndef SQUEEZE_CONFIG_YAML_DOCUMENTS_H_
#define SQUEEZE_CONFIG_YAML_DOCUMENTS_H_

#include <string>

#include <yaml-cpp/yaml.h>

namespace squeeze {

struct YamlDocuments {
  YAML::Node first;   // the first document (Null for empty text)
  int count = 0;      // documents in the text, counted up to 2
  YAML::Mark second;  // where the second one starts, when there is one
};

// Throws what yaml-cpp throws for malformed text, as YAML::Load does.
YamlDocuments LoadYamlDocuments(const std::string& text);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_YAML_DOCUMENTS_H_
