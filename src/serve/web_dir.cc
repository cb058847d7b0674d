#include "serve/web_dir.h"

#include <limits.h>
#include <unistd.h>

#include <filesystem>

namespace squeeze {

std::string WebDirBeside(const std::string& executable_path) {
  const size_t slash = executable_path.rfind('/');
  if (slash == std::string::npos) return "web";
  return executable_path.substr(0, slash + 1) + "web";
}

std::string DefaultWebDir() {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "web";
  return WebDirBeside(std::string(self, static_cast<size_t>(n)));
}

bool WebDirBuilt(const std::string& dir) {
  std::error_code ec;
  return !dir.empty() && std::filesystem::is_regular_file(dir + "/index.html", ec);
}

std::string WebDirMissingText(const std::string& dir) {
  return "squeeze: the web dashboard is not built (no index.html in " + dir +
         ").\nBuild it with scripts/build.sh (or: cd web && npm ci && npm run build), or give "
         "squeeze serve --web-dir DIR.\nThe API is under /v1 (docs/serve.md).\n";
}

}  // namespace squeeze
