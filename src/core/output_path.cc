#include "core/output_path.h"

#include <cctype>
#include <climits>

namespace squeeze {
namespace {

constexpr std::string_view kLetters = "%j (job id), %A (array id), %a (array task), %x (name), "
                                      "%u (user), %% (a percent sign)";
constexpr size_t kMaxPad = 10;  // sbatch's most

// Walks `pattern`, calling `literal(text)` for plain text and `field(letter, pad)` for each
// % item; an error names the first item it does not know.
template <typename Literal, typename Field>
Status Walk(std::string_view pattern, Literal literal, Field field) {
  for (size_t i = 0; i < pattern.size();) {
    const size_t percent = pattern.find('%', i);
    literal(pattern.substr(i, percent - i));
    if (percent == std::string_view::npos) break;
    size_t at = percent + 1;
    while (at < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[at]))) ++at;
    const std::string_view digits = pattern.substr(percent + 1, at - percent - 1);
    if (at == pattern.size()) {
      return Status::Error("it ends in '" + std::string(pattern.substr(percent)) +
                           "', which fills in nothing (write %% for a percent sign)");
    }
    const char letter = pattern[at];
    if (std::string_view("jAaxu%").find(letter) == std::string_view::npos ||
        (letter == '%' && !digits.empty())) {
      return Status::Error("'" + std::string(pattern.substr(percent, at + 1 - percent)) +
                           "' is not a pattern squeeze fills in; it knows " +
                           std::string(kLetters));
    }
    if (digits.size() > 2 || (!digits.empty() && std::stoul(std::string(digits)) > kMaxPad)) {
      return Status::Error("'" + std::string(pattern.substr(percent, at + 1 - percent)) +
                           "' pads to more than " + std::to_string(kMaxPad) + " digits");
    }
    field(letter, digits.empty() ? size_t{0} : std::stoul(std::string(digits)));
    i = at + 1;
  }
  return Status::Ok();
}

std::string Padded(std::string digits, size_t pad) {
  if (digits.size() < pad) digits.insert(0, pad - digits.size(), '0');
  return digits;
}

}  // namespace

Status CheckOutputPattern(std::string_view pattern) {
  if (pattern.empty()) return Status::Error("the path is empty");
  if (pattern.find('\0') != std::string_view::npos) return Status::Error("it holds a NUL byte");
  if (pattern.size() >= PATH_MAX) {
    return Status::Error("it is longer than " + std::to_string(PATH_MAX - 1) + " bytes");
  }
  if (pattern[0] == '~') return Status::Error("'~' is not expanded; give the full path");
  const std::string_view last = pattern.substr(pattern.rfind('/') + 1);
  if (last.empty() || last == "." || last == "..") {
    return Status::Error("it names a directory; give a file in it (out_%j.txt)");
  }
  return Walk(pattern, [](std::string_view) {}, [](char, size_t) {});
}

Result<std::string> ExpandOutputPath(std::string_view pattern, const OutputRun& run) {
  if (Status s = CheckOutputPattern(pattern); !s.ok()) return s;
  std::string path;
  if (pattern[0] != '/' && !run.workdir.empty()) {
    path = run.workdir;
    if (path.back() != '/') path.push_back('/');
  }
  const bool array = run.array_id != 0;
  Status s = Walk(
      pattern, [&](std::string_view text) { path.append(text); },
      [&](char letter, size_t pad) {
        switch (letter) {
          case 'j':
            path += Padded(std::to_string(run.id), pad);
            break;
          case 'A':
            path += Padded(std::to_string(array ? run.array_id : run.id), pad);
            break;
          case 'a':
            path += Padded(array ? std::to_string(run.array_task) : std::string(kNoArrayTask),
                           pad);
            break;
          case 'x':
            path += run.name;
            break;
          case 'u':
            path += run.user;
            break;
          default:
            path += '%';
        }
      });
  if (!s.ok()) return s;
  return path;
}

std::string EscapePercent(std::string_view path) {
  std::string out;
  for (char c : path) {
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

}  // namespace squeeze
