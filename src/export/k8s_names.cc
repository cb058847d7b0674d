#include "export/k8s_names.h"

#include <cctype>

namespace squeeze {
namespace {

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

}  // namespace

Result<std::string> DnsLabel(const std::string& name, const std::string& what) {
  std::string out;
  bool dash = false;
  for (char c : name) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (IsLowerAlnum(lower)) {
      if (dash && !out.empty()) out += '-';
      dash = false;
      out += lower;
    } else {
      dash = true;
    }
  }
  if (out.empty()) {
    return Status::Error(what + " '" + name +
                         "' cannot be made a Kubernetes name (DNS-1123 label): it has no letter "
                         "or digit a-z, 0-9");
  }
  if (out.size() > kMaxLabelLength) {
    return Status::Error(what + " '" + name + "' makes the Kubernetes name '" + out + "' of " +
                         std::to_string(out.size()) + " characters; a DNS-1123 label has at most " +
                         std::to_string(kMaxLabelLength));
  }
  return out;
}

bool IsDnsLabel(const std::string& s) {
  if (s.empty() || s.size() > kMaxLabelLength) return false;
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return s.front() != '-' && s.back() != '-';
}

bool IsLabelValue(const std::string& s) {
  if (s.empty()) return true;
  if (s.size() > kMaxLabelLength || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

std::string GpuProductLabel(const std::string& model) {
  std::string out;
  bool space = false;
  for (char c : model) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += '-';
    space = false;
    out += c;
  }
  return out;
}

std::string CpuQuantity(int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

std::string MemoryQuantity(int64_t mib) {
  if (mib % 1024 == 0) return std::to_string(mib / 1024) + "Gi";
  return std::to_string(mib) + "Mi";
}

}  // namespace squeeze
