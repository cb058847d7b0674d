// YAML for Kubernetes manifests, written the same way every time: a small value tree (maps keep
// the order keys were set in, strings are quoted whenever a YAML reader could take them for a
// number, a boolean or null) and documents with `#` comment lines above them. Used by `squeeze
// export`; plain values, not thread-bound.
#ifndef SQUEEZE_EXPORT_K8S_YAML_H_
#define SQUEEZE_EXPORT_K8S_YAML_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace squeeze {

class YamlValue {
 public:
  enum class Kind { kMap, kList, kString, kInt, kBool, kBlock };

  static YamlValue Map() { return YamlValue(Kind::kMap); }
  static YamlValue List() { return YamlValue(Kind::kList); }
  static YamlValue String(std::string s);
  static YamlValue Int(int64_t v);
  static YamlValue Bool(bool v);
  // A multi-line string written as a literal block (`|`), e.g. a configuration file held in a
  // ConfigMap; its lines are kept as they are.
  static YamlValue Block(std::string text);

  // Map only: sets `key` (appended; a key set twice keeps its first place, last value).
  YamlValue& Set(const std::string& key, YamlValue value);
  // List only: appends `value`.
  YamlValue& Add(YamlValue value);

  Kind kind() const { return kind_; }
  const std::vector<std::pair<std::string, YamlValue>>& entries() const { return entries_; }
  const std::vector<YamlValue>& items() const { return items_; }
  const std::string& scalar() const { return scalar_; }
  // Map only: the value of `key`, or nullptr.
  const YamlValue* Find(const std::string& key) const;

 private:
  explicit YamlValue(Kind kind) : kind_(kind) {}
  Kind kind_;
  std::string scalar_;  // string, block, or the text of an int or bool
  std::vector<std::pair<std::string, YamlValue>> entries_;
  std::vector<YamlValue> items_;
};

// One `---` document: comment lines (without their `# `) and the object.
struct YamlDocument {
  std::vector<std::string> comments;
  YamlValue body = YamlValue::Map();
};

// A string as a YAML scalar: plain when that reads back as the same string, double-quoted
// (with escapes) otherwise.
std::string YamlScalar(const std::string& s);

// `text` broken into comment lines of at most `width` characters at spaces: the first begins
// with `first`, the others with `rest` (e.g. "- " and "  " for a bullet).
std::vector<std::string> WrapComment(const std::string& text, size_t width,
                                     const std::string& first, const std::string& rest);

// One comment line: "# " and `text` with every YAML line break and control character escaped
// (\x0a, \u2028), so that no text (a file name, a user's value) can end the comment.
std::string CommentLine(const std::string& text);

// The file: `header` comment lines, then each document after a `---` line.
std::string EmitYaml(const std::vector<std::string>& header,
                     const std::vector<YamlDocument>& documents);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_K8S_YAML_H_
