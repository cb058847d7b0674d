#include "config/job_text.h"

#include <string_view>

#include "core/safe_text.h"

namespace squeeze {
namespace {

// Why a field may hold no control character, for its message.
std::string_view WhyPlain(std::string_view field) {
  if (field == "name" || field == "team") return "names are printed to other users";
  return "squeeze prints it in its tables and messages";
}

Status At(const JobNode& n, const std::string& source, const Status& s) {
  return Status::Error((n.where.empty() ? source : n.where) + ": " + s.message());
}

// An argument of the command or a value of the env: any text a program may take, but UTF-8
// (it travels as JSON) and without NUL (which no argv or environment string can hold).
Status CheckProgramText(const JobNode& n, const std::string& path, const std::string& source) {
  if (InvalidUtf8At(n.text)) {
    return At(n, source, CheckPlainText(path, n.text, "a job's text travels as UTF-8 JSON"));
  }
  if (n.text.find('\0') != std::string::npos) {
    return At(n, source,
              Status::Error(path + ": " + QuotedValue(n.text) +
                            " holds a NUL byte, which no argument or environment value can hold"));
  }
  return Status::Ok();
}

// `top`: the job field `n` belongs to (the first part of `path`).
Status CheckNode(const JobNode& n, const std::string& path, const std::string& source,
                 std::string_view top) {
  switch (n.kind) {
    case JobNode::Kind::kNull:
      return Status::Ok();
    case JobNode::Kind::kScalar:
      if (top == "command" || (top == "env" && path != "env")) {
        return CheckProgramText(n, path, source);
      }
      if (Status s = CheckPlainText(path, n.text, WhyPlain(top)); !s.ok()) return At(n, source, s);
      return Status::Ok();
    case JobNode::Kind::kList:
      for (size_t i = 0; i < n.items.size(); ++i) {
        const std::string item = path + "[" + std::to_string(i) + "]";
        if (Status s = CheckNode(n.items[i], item, source, top); !s.ok()) return s;
      }
      return Status::Ok();
    case JobNode::Kind::kMap:
      for (const JobEntry& e : n.entries) {
        const std::string_view field_top = path.empty() ? std::string_view(e.key) : top;
        if (Status s = CheckPlainText(path.empty() ? "field name" : path + " key", e.key,
                                      WhyPlain(field_top));
            !s.ok()) {
          return Status::Error((e.where.empty() ? source : e.where) + ": " + s.message());
        }
        const std::string field = path.empty() ? e.key : path + "." + e.key;
        if (Status s = CheckNode(e.value, field, source, field_top); !s.ok()) return s;
      }
      return Status::Ok();
  }
  return Status::Ok();
}

}  // namespace

Status CheckJobText(const JobNode& root, const std::string& source) {
  return CheckNode(root, "", source, "");
}

}  // namespace squeeze
