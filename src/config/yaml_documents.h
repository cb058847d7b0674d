// Reading YAML text that should hold one document (a job, a cluster, a scenario file) with
// yaml-cpp, whose LoadAll never returns on some broken text (yaml-cpp 0.7 hands out the same
// empty document forever for a stray ',': found by fuzz/fuzz_job.cc). Config-internal: the
// readers of config/ use it; LoadYamlDocuments lets yaml-cpp's exceptions through,
// ReadOneYamlDocument makes them (and a text of none or two documents) errors.
#ifndef SQUEEZE_CONFIG_YAML_DOCUMENTS_H_
#define SQUEEZE_CONFIG_YAML_DOCUMENTS_H_

#include <functional>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "config/text_util.h"
#include "core/status.h"

namespace squeeze {

struct YamlDocuments {
  YAML::Node first;   // the first document (Null for empty text)
  int count = 0;      // documents in the text, counted up to 2
  YAML::Mark second;  // where the second one starts, when there is one
};

// Throws what yaml-cpp throws for malformed text, as YAML::Load does.
YamlDocuments LoadYamlDocuments(const std::string& text);

// The one document of `text` (a UTF-8 byte-order mark skipped) given to `read`; every error
// starts with `source`: a syntax error (with its line and column), a second document, an empty
// text ("the file is empty; expected " + `expected`), or what yaml-cpp throws meanwhile.
template <typename T>
Result<T> ReadOneYamlDocument(std::string_view text, const std::string& source,
                              const std::string& expected,
                              const std::function<Result<T>(const YAML::Node&)>& read) {
  try {
    const YamlDocuments docs = LoadYamlDocuments(std::string(StripBom(text)));
    if (docs.count > 1) {
      return Status::Error(source + ":" + std::to_string(docs.second.line + 1) +
                           ": holds more than one YAML document; expected one");
    }
    if (docs.count == 0 || docs.first.IsNull()) {
      return Status::Error(source + ": the file is empty; expected " + expected);
    }
    return read(docs.first);
  } catch (const YAML::ParserException& e) {
    return Status::Error(source + ":" + std::to_string(e.mark.line + 1) + ":" +
                         std::to_string(e.mark.column + 1) + ": YAML syntax error: " + e.msg);
  } catch (const YAML::Exception& e) {
    return Status::Error(source + ": cannot read the YAML: " + std::string(e.what()));
  }
}

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_YAML_DOCUMENTS_H_
