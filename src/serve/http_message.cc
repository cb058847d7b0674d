#include "serve/http_message.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "serve/error_kinds.h"

namespace squeeze {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool SameNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string HttpRequest::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (SameNoCase(k, name)) return v;
  }
  return "";
}

HttpResponse JsonError(int status, const std::string& message, std::optional<ErrorKind> kind) {
  // Replaced, not thrown on: a message may quote a byte that is not UTF-8.
  return JsonText(status,
                  nlohmann::json{{"error", message},
                                 {"kind", ErrorKindName(kind.value_or(ErrorKindOfHttpStatus(status)))}}
                      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

HttpResponse JsonText(int status, std::string text) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = std::move(text);
  return r;
}

std::string PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
        HexValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2])));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

HttpFields ParseQuery(std::string_view query) {
  HttpFields out;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    out.emplace_back(PercentDecode(pair.substr(0, eq), true),
                     eq == std::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1), true));
  }
  return out;
}

std::string PeerKeyOfUid(uid_t uid) { return "uid " + std::to_string(uid); }

std::string TcpPeerKey(const std::string& ip, std::optional<uid_t> owner) {
  if (owner && IsLoopback(ip)) return PeerKeyOfUid(*owner);
  return "ip " + ip;
}

bool IsLoopback(std::string_view ip) {
  if (ip.rfind("::ffff:", 0) == 0) ip.remove_prefix(7);
  return ip == "::1" || ip.rfind("127.", 0) == 0;
}

}  // namespace squeeze
