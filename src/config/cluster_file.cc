#include "config/cluster_file.h"

#include <algorithm>
#include <cctype>

#include "config/file_io.h"
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

}  // namespace

bool IsCsvClusterFile(const std::string& path, std::string_view text) {
  return HasCsvExtension(path) || LooksLikeCsv(text);
}

Result<ClusterSpec> LoadClusterFile(const std::string& path) {
  const Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status().WithContext("cluster file");
  if (IsCsvClusterFile(path, *text)) return ParseClusterCsv(*text, path);
  return ParseClusterYaml(*text, path);
}

}  // namespace squeeze
