#include "serve/access.h"

#include "config/text_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/safe_text.h"

namespace squeeze {
namespace {

std::string TokensPath(const std::string& dir) { return dir + "/tokens"; }

bool ValidName(std::string_view s) { return IsPlainName(s); }


// Appends `text` to `path`, creating it with mode 0600; fsyncs.
Status AppendPrivate(const std::string& path, const std::string& text, bool truncate) {
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : O_APPEND);
  const int fd = open(path.c_str(), flags, 0600);
  if (fd < 0) return Status::Error("cannot write '" + path + "': " + std::strerror(errno));
  fchmod(fd, 0600);
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                  fsync(fd) == 0;
  close(fd);
  if (!ok) return Status::Error("cannot write '" + path + "': " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace

Result<std::string> RandomToken() {
  std::array<unsigned char, 32> bytes{};
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(std::string("cannot open /dev/urandom: ") + std::strerror(errno));
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = read(fd, bytes.data() + got, bytes.size() - got);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) got += static_cast<size_t>(n);
  }
  close(fd);
  if (got < bytes.size()) return Status::Error("cannot read /dev/urandom");
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

bool SameSecret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  }
  return diff == 0;
}

Result<TokenRegistry> TokenRegistry::Load(const std::string& data_dir) {
  TokenRegistry reg;
  const std::string path = TokensPath(data_dir);
  std::ifstream in(path);
  if (!in) return reg;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Entry e;
    std::string role, extra;
    fields >> e.token >> e.who.user >> e.who.team >> role;
    if (e.token.size() < 32 || !ValidName(e.who.user) || !ValidName(e.who.team) ||
        (role != "admin" && role != "user") || (fields >> extra)) {
      return Status::Error(path + ":" + std::to_string(line_no) +
                           ": expected 'TOKEN USER TEAM ROLE' (a token of 32+ characters, "
                           "ROLE admin or user)");
    }
    e.who.admin = role == "admin";
    reg.entries_.push_back(std::move(e));
  }
  return reg;
}

std::optional<std::string> TokenRegistry::TeamOf(std::string_view user) const {
  for (const Entry& e : entries_) {
    if (e.who.user == user) return e.who.team;
  }
  return std::nullopt;
}

std::optional<Principal> TokenRegistry::Authenticate(std::string_view token) const {
  if (token.empty()) return std::nullopt;
  const Principal* found = nullptr;
  for (const Entry& e : entries_) {  // every entry, every byte: no early exit to time
    if (SameSecret(e.token, token)) found = &e.who;
  }
  if (found == nullptr) return std::nullopt;
  return *found;
}

Result<std::pair<std::string, bool>> EnsureAdminToken(const std::string& data_dir,
                                                      const std::string& user) {
  const std::string admin_path = data_dir + "/admin.token";
  auto reg = TokenRegistry::Load(data_dir);
  if (!reg.ok()) return reg.status();
  std::ifstream in(TokensPath(data_dir));
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > 6 && line.compare(line.size() - 6, 6, " admin") == 0) {
      return std::make_pair(admin_path, false);
    }
  }
  auto token = AddToken(data_dir, user, "admin", true);
  if (!token.ok()) return token.status();
  if (Status st = AppendPrivate(admin_path, *token + "\n", true); !st.ok()) return st;
  return std::make_pair(admin_path, true);
}

Result<std::string> AddToken(const std::string& data_dir, const std::string& user,
                             const std::string& team, bool admin) {
  constexpr std::string_view kNames = ": use 1-64 of A-Z a-z 0-9 . _ -";
  if (!ValidName(user)) return Status::Error("user " + QuotedValue(user) + std::string(kNames));
  if (!ValidName(team)) return Status::Error("team " + QuotedValue(team) + std::string(kNames));
  auto token = RandomToken();
  if (!token.ok()) return token.status();
  const std::string line = *token + " " + user + " " + team + (admin ? " admin\n" : " user\n");
  if (Status st = AppendPrivate(TokensPath(data_dir), line, false); !st.ok()) return st;
  return *token;
}

std::optional<std::string_view> BearerToken(std::string_view header) {
  constexpr std::string_view kPrefix = "Bearer ";
  if (header.size() <= kPrefix.size() || header.substr(0, kPrefix.size()) != kPrefix) {
    return std::nullopt;
  }
  std::string_view token = header.substr(kPrefix.size());
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty() || token.find(' ') != std::string_view::npos) return std::nullopt;
  return token;
}

}  // namespace squeeze

namespace squeeze {
namespace {

int64_t TokensMtimeNs(const std::string& data_dir) {
  struct stat st {};
  if (stat((data_dir + "/tokens").c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

LiveTokens::LiveTokens(std::string data_dir, TokenRegistry tokens, int64_t mtime_ns)
    : data_dir_(std::move(data_dir)),
      tokens_(std::make_shared<const TokenRegistry>(std::move(tokens))), mtime_ns_(mtime_ns),
      checked_at_ms_(SteadyMs()) {}

Result<std::unique_ptr<LiveTokens>> LiveTokens::Load(const std::string& data_dir) {
  const int64_t mtime = TokensMtimeNs(data_dir);
  auto tokens = TokenRegistry::Load(data_dir);
  if (!tokens.ok()) return tokens.status();
  return std::unique_ptr<LiveTokens>(new LiveTokens(data_dir, std::move(tokens).value(), mtime));
}

void LiveTokens::ReloadIfChanged() const {
  const int64_t now = SteadyMs();
  if (now - checked_at_ms_ < 1000) return;
  checked_at_ms_ = now;
  const int64_t mtime = TokensMtimeNs(data_dir_);
  if (mtime == mtime_ns_) return;
  auto tokens = TokenRegistry::Load(data_dir_);
  if (!tokens.ok()) return;  // keep what was read last
  tokens_ = std::make_shared<const TokenRegistry>(std::move(tokens).value());
  mtime_ns_ = mtime;
}

std::optional<Principal> LiveTokens::Authenticate(std::string_view token) const {
  std::shared_ptr<const TokenRegistry> tokens;
  {
    std::lock_guard lock(mu_);
    ReloadIfChanged();
    tokens = tokens_;
  }
  return tokens->Authenticate(token);
}

std::optional<std::string> LiveTokens::TeamOf(std::string_view user) const {
  std::shared_ptr<const TokenRegistry> tokens;
  {
    std::lock_guard lock(mu_);
    ReloadIfChanged();
    tokens = tokens_;
  }
  return tokens->TeamOf(user);
}

}  // namespace squeeze
