#include "config/data_path.h"

#include <filesystem>

namespace squeeze {

Result<std::string> ResolveInside(const std::string& data_dir, const std::string& path) {
  namespace fs = std::filesystem;
  if (data_dir.empty() || data_dir[0] != '/') {
    return Status::Error("data directory '" + data_dir + "' is not an absolute path");
  }
  if (path.empty()) return Status::Error("the path is empty");
  if (path.find('\0') != std::string::npos) return Status::Error("the path holds a NUL character");
  const fs::path base = fs::path(data_dir).lexically_normal();
  const fs::path full = (base / path).lexically_normal();
  const fs::path inside = full.lexically_relative(base);
  if (inside.empty() || *inside.begin() == "..") {
    return Status::Error("path '" + path + "' leads outside the data directory " + base.string());
  }
  std::string out = full.string();
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace squeeze
