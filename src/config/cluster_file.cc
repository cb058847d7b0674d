#include "config/cluster_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/text_util.h"

namespace squeeze {
namespace {

bool HasCsvExtension(const std::string& path) {
  constexpr std::string_view kExt = ".csv";
  if (path.size() < kExt.size()) return false;
  return std::equal(kExt.begin(), kExt.end(), path.end() - kExt.size(), [](char a, char b) {
    return a == std::tolower(static_cast<unsigned char>(b));
  });
}

bool LooksLikeCsv(std::string_view text) {
  text = StripBom(text);
  const size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return false;
  return text.substr(start, 5) == "pool,";
}

Result<std::string> ReadWholeFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Status::Error(path + ": is a directory, not a cluster file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(path + ": cannot open the cluster file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::Error(path + ": cannot read the cluster file");
  return text.str();
}

}  // namespace

Result<ClusterSpec> LoadClusterFile(const std::string& path) {
  const Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  if (HasCsvExtension(path) || LooksLikeCsv(*text)) return ParseClusterCsv(*text, path);
  return ParseClusterYaml(*text, path);
}

}  // namespace squeeze
