#include "exec/supervisor_spec.h"

#include <charconv>

namespace squeeze {
namespace {

// Reads the next NUL-ended word at `at`; false at the end of the text or without a NUL.
bool NextWord(const std::string& text, size_t& at, std::string& word) {
  const size_t end = text.find('\0', at);
  if (end == std::string::npos) return false;
  word.assign(text, at, end - at);
  at = end + 1;
  return true;
}

std::optional<int64_t> ToInt(const std::string& text) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// Reads SpecFields into typed values; the first problem is kept, naming the field.
class FieldReader {
 public:
  explicit FieldReader(const SpecFields& fields) : fields_(fields) {}

  void Text(const char* name, std::string& out) {
    auto it = fields_.find(name);
    if (it == fields_.end()) return;
    if (it->second.size() != 1) return Fail(std::string(name) + ": expected one value");
    out = it->second.front();
  }
  template <typename Int>
  void Number(const char* name, Int& out) {
    std::string text;
    Text(name, text);
    if (text.empty()) return;
    std::optional<int64_t> n = ToInt(text);
    if (!n) return Fail(std::string(name) + ": '" + text + "' is not a number");
    out = static_cast<Int>(*n);
  }
  void Flag(const char* name, bool& out) {
    std::string text;
    Text(name, text);
    out = text == "1";
  }
  void List(const char* name, std::vector<std::string>& out) {
    if (auto it = fields_.find(name); it != fields_.end()) out = it->second;
  }
  Status Done() const { return problem_.empty() ? Status::Ok() : Status::Error("spec: " + problem_); }

 private:
  void Fail(std::string why) {
    if (problem_.empty()) problem_ = std::move(why);
  }
  const SpecFields& fields_;
  std::string problem_;
};

}  // namespace

std::string EncodeSpec(const SpecFields& fields) {
  std::string out;
  for (const auto& [name, values] : fields) {
    out.append(name).push_back('\0');
    out.append(std::to_string(values.size())).push_back('\0');
    for (const std::string& v : values) out.append(v.c_str()).push_back('\0');
  }
  return out;
}

Result<SpecFields> DecodeSpec(const std::string& text) {
  if (text.size() > kMaxSpecBytes) {
    return Status::Error("spec: " + std::to_string(text.size()) + " bytes, over the limit of " +
                         std::to_string(kMaxSpecBytes));
  }
  SpecFields fields;
  size_t at = 0;
  std::string name, count_text;
  while (at < text.size()) {
    if (!NextWord(text, at, name) || name.empty()) return Status::Error("spec: a field has no name");
    if (!NextWord(text, at, count_text)) return Status::Error("spec: field '" + name + "' has no count");
    std::optional<int64_t> count = ToInt(count_text);
    if (!count || *count < 0 || static_cast<size_t>(*count) > text.size()) {
      return Status::Error("spec: field '" + name + "' has a bad count '" + count_text + "'");
    }
    std::vector<std::string>& values = fields[name];
    if (!values.empty()) return Status::Error("spec: field '" + name + "' appears twice");
    values.resize(static_cast<size_t>(*count));
    for (int64_t i = 0; i < *count; ++i) {
      if (!NextWord(text, at, values[static_cast<size_t>(i)])) {
        return Status::Error("spec: field '" + name + "' says " + count_text + " values but has " +
                             std::to_string(i));
      }
    }
  }
  return fields;
}

std::string EncodeRunSpec(const RunSpec& s) {
  return EncodeSpec({{"data_dir", {s.data_dir}},
                     {"id", {std::to_string(s.id)}},
                     {"attempt", {std::to_string(s.attempt)}},
                     {"workdir", {s.workdir}},
                     {"user", {s.user}},
                     {"command", s.command},
                     {"env", s.env},
                     {"output", {s.output}},
                     {"error", {s.error}},
                     {"append", {s.append ? "1" : "0"}},
                     {"cgroup_parent", {s.cgroup_parent}},
                     {"cpu_milli", {std::to_string(s.cpu_milli)}},
                     {"memory_bytes", {std::to_string(s.memory_bytes)}},
                     {"max_log_bytes", {std::to_string(s.max_log_bytes)}},
                     {"leftover_grace_s", {std::to_string(s.leftover_grace_s)}}});
}

Result<RunSpec> DecodeRunSpec(const std::string& text) {
  Result<SpecFields> fields = DecodeSpec(text);
  if (!fields.ok()) return fields.status();
  RunSpec s;
  FieldReader r(*fields);
  r.Text("data_dir", s.data_dir);
  r.Number("id", s.id);
  r.Number("attempt", s.attempt);
  r.Text("workdir", s.workdir);
  r.Text("user", s.user);
  r.List("command", s.command);
  r.List("env", s.env);
  r.Text("output", s.output);
  r.Text("error", s.error);
  r.Flag("append", s.append);
  r.Text("cgroup_parent", s.cgroup_parent);
  r.Number("cpu_milli", s.cpu_milli);
  r.Number("memory_bytes", s.memory_bytes);
  r.Number("max_log_bytes", s.max_log_bytes);
  r.Number("leftover_grace_s", s.leftover_grace_s);
  if (Status done = r.Done(); !done.ok()) return done;
  if (s.data_dir.empty() || s.id <= 0 || s.attempt <= 0 || s.command.empty()) {
    return Status::Error("spec: a run needs data_dir, id, attempt and command");
  }
  return s;
}

std::string EncodeCheckSpec(const CheckSpec& s) {
  return EncodeSpec({{"user", {s.user}}, {"workdir", {s.workdir}}, {"path", {s.path}},
                     {"command", s.command}});
}

Result<CheckSpec> DecodeCheckSpec(const std::string& text) {
  Result<SpecFields> fields = DecodeSpec(text);
  if (!fields.ok()) return fields.status();
  CheckSpec s;
  FieldReader r(*fields);
  r.Text("user", s.user);
  r.Text("workdir", s.workdir);
  r.Text("path", s.path);
  r.List("command", s.command);
  if (Status done = r.Done(); !done.ok()) return done;
  if (s.command.empty()) return Status::Error("spec: a check needs a command");
  return s;
}

std::string EncodeReadSpec(const ReadSpec& s) {
  return EncodeSpec({{"user", {s.user}}, {"path", {s.path}}, {"from", {std::to_string(s.from)}},
                     {"max", {std::to_string(s.max)}}});
}

Result<ReadSpec> DecodeReadSpec(const std::string& text) {
  Result<SpecFields> fields = DecodeSpec(text);
  if (!fields.ok()) return fields.status();
  ReadSpec s;
  FieldReader r(*fields);
  r.Text("user", s.user);
  r.Text("path", s.path);
  r.Number("from", s.from);
  r.Number("max", s.max);
  if (Status done = r.Done(); !done.ok()) return done;
  if (s.path.empty() || s.max <= 0) return Status::Error("spec: a read needs a path and a max");
  return s;
}

}  // namespace squeeze
