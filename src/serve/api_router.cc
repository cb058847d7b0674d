#include "serve/api_router.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

namespace squeeze {
namespace {

constexpr uintmax_t kMaxStaticFile = 64u << 20;
constexpr size_t kMaxPath = 2048;

// No component is "..", and no byte is a NUL: the path stays inside the mounted folder.
bool SafeRelative(const std::string& path) {
  if (path.find('\0') != std::string::npos || path.find('\\') != std::string::npos) return false;
  size_t at = 0;
  while (at <= path.size()) {
    const size_t slash = path.find('/', at);
    const std::string part = path.substr(at, slash == std::string::npos ? std::string::npos : slash - at);
    if (part == "..") return false;
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
  return true;
}

}  // namespace

std::string ContentTypeOf(const std::string& path) {
  static const std::map<std::string, std::string> kTypes = {
      {".html", "text/html"},        {".htm", "text/html"},
      {".css", "text/css"},          {".js", "text/javascript"},
      {".mjs", "text/javascript"},   {".json", "application/json"},
      {".map", "application/json"},  {".svg", "image/svg+xml"},
      {".png", "image/png"},         {".ico", "image/x-icon"},
      {".txt", "text/plain"},        {".woff2", "font/woff2"}};
  const auto it = kTypes.find(std::filesystem::path(path).extension().string());
  return it == kTypes.end() ? "application/octet-stream" : it->second;
}

void ApiRouter::Add(std::string method, const std::string& pattern, Handler handler) {
  routes_.push_back(Entry{std::move(method), std::regex(pattern), std::move(handler)});
}

void ApiRouter::Mount(std::string prefix, std::string dir) {
  mount_prefix_ = std::move(prefix);
  mount_dir_ = std::move(dir);
}

std::optional<HttpResponse> ApiRouter::StaticFile(const std::string& path) const {
  if (mount_prefix_.empty() || path.rfind(mount_prefix_, 0) != 0) return std::nullopt;
  std::string sub = path.substr(mount_prefix_.size());
  if (!SafeRelative(sub)) return std::nullopt;
  std::string file = mount_dir_ + "/" + sub;
  std::error_code ec;
  if (sub.empty() || sub.back() == '/') file += "index.html";
  if (std::filesystem::is_directory(file, ec)) file += "/index.html";
  if (!std::filesystem::is_regular_file(file, ec) ||
      std::filesystem::file_size(file, ec) > kMaxStaticFile || ec) {
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  HttpResponse r;
  r.body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  r.content_type = ContentTypeOf(file);
  return r;
}

HeadReply ApiRouter::Route(HttpRequest& request) const {
  // std::regex recurses per character: a long path could exhaust a worker's stack.
  if (request.path.size() > kMaxPath) {
    return HeadReply::Now(JsonError(414, "the path is over " + std::to_string(kMaxPath) + " bytes"));
  }
  if (request.method == "GET") {
    if (auto file = StaticFile(request.path)) return HeadReply::Now(std::move(*file));
  }
  std::smatch m;
  for (const Entry& e : routes_) {
    if (e.method != request.method || !std::regex_match(request.path, m, e.pattern)) continue;
    request.matches.assign(m.begin(), m.end());
    return e.handler(request);
  }
  return HeadReply::Now(JsonError(404, "no such endpoint"));
}

}  // namespace squeeze
