#include "core/checkpoint_store.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace squeeze {
namespace {

constexpr std::string_view kScheme = "s3://";

// S3's bucket names: 3 to 63 of lowercase letters, digits, '.' and '-', starting and ending
// with a letter or digit.
bool ValidBucket(std::string_view b) {
  if (b.size() < 3 || b.size() > 63) return false;
  for (char c : b) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
          c == '.' || c == '-')) {
      return false;
    }
  }
  auto alnum = [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c));
  };
  return alnum(b.front()) && alnum(b.back());
}

std::string Quoted(std::string_view v) { return "'" + std::string(v) + "'"; }

}  // namespace

Status CheckStoreUrl(std::string_view url) {
  if (url.substr(0, kScheme.size()) != kScheme) {
    return Status::Error("value " + Quoted(url) + " is not an s3:// URL (s3://BUCKET/PREFIX)");
  }
  const std::string_view rest = url.substr(kScheme.size());
  const std::string_view bucket = rest.substr(0, rest.find('/'));
  if (!ValidBucket(bucket)) {
    return Status::Error("value " + Quoted(url) + " names bucket " + Quoted(bucket) +
                         ", not a valid bucket name (3 to 63 lowercase letters, digits, '.' "
                         "and '-', starting and ending with a letter or digit)");
  }
  for (char c : rest) {
    if (std::iscntrl(static_cast<unsigned char>(c)) || c == ' ' || c == '\\') {
      return Status::Error("value " + Quoted(url) + " has a space, backslash or control "
                           "character in its prefix");
    }
  }
  if (rest.find("//") != std::string_view::npos || rest.find("/../") != std::string_view::npos) {
    return Status::Error("value " + Quoted(url) + " has an empty or '..' part in its prefix");
  }
  return Status::Ok();
}

Status CheckStoreEndpoint(std::string_view url) {
  std::string_view host;
  if (url.substr(0, 7) == "http://") {
    host = url.substr(7);
  } else if (url.substr(0, 8) == "https://") {
    host = url.substr(8);
  } else {
    return Status::Error("value " + Quoted(url) + " is not an http:// or https:// URL");
  }
  host = host.substr(0, host.find('/'));
  if (host.empty()) return Status::Error("value " + Quoted(url) + " has no host");
  for (char c : url) {
    if (std::iscntrl(static_cast<unsigned char>(c)) || c == ' ') {
      return Status::Error("value " + Quoted(url) + " has a space or control character");
    }
  }
  return Status::Ok();
}

Time UploadSeconds(const CheckpointStore& store) {
  double gbps = store.upload_gbps;
  if (store.max_upload_gbps > 0) gbps = std::min(gbps, store.max_upload_gbps);
  if (!store.named() || store.checkpoint_bytes <= 0 || gbps <= 0) return 0;
  const double seconds = static_cast<double>(store.checkpoint_bytes) * 8 / (gbps * 1e9);
  return Seconds(static_cast<int64_t>(std::ceil(seconds)));  // whole seconds
}

std::map<std::string, std::string> CheckpointStoreEnvironment(JobId id,
                                                              const CheckpointStore& store) {
  std::map<std::string, std::string> env;
  if (!store.named()) return env;
  std::string url = store.url;
  if (url.back() != '/') url.push_back('/');
  env["SQUEEZE_CHECKPOINT_STORE"] = url + std::to_string(id);
  if (!store.endpoint.empty()) env["SQUEEZE_CHECKPOINT_STORE_ENDPOINT"] = store.endpoint;
  if (!store.region.empty()) env["SQUEEZE_CHECKPOINT_STORE_REGION"] = store.region;
  if (!store.credentials.empty()) env["SQUEEZE_CHECKPOINT_STORE_CREDENTIALS"] = store.credentials;
  if (!store.profile.empty()) env["SQUEEZE_CHECKPOINT_STORE_PROFILE"] = store.profile;
  env["SQUEEZE_CHECKPOINT_STORE_KEEP"] = std::to_string(store.keep);
  if (store.max_upload_gbps > 0) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", store.max_upload_gbps);
    env["SQUEEZE_CHECKPOINT_STORE_MAX_GBPS"] = text;
  }
  return env;
}

}  // namespace squeeze
