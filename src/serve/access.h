// Who may do what in `squeeze serve`: bearer tokens that map to a user and a team, and an
// admin. The tokens live in DIR/tokens (mode 0600), one "TOKEN USER TEAM ROLE" line each
// (ROLE = admin or user); on the first start the daemon creates an admin token and also writes
// it alone to DIR/admin.token (0600) for the operator. Tokens are 32 random bytes from
// /dev/urandom in hex. Thread-safe for reads once loaded.
#ifndef SQUEEZE_SERVE_ACCESS_H_
#define SQUEEZE_SERVE_ACCESS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace squeeze {

struct Principal {
  std::string user;
  std::string team;
  bool admin = false;
};

// Who holds a token: what the API asks on every request.
class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // nullopt for an unknown or empty token.
  virtual std::optional<Principal> Authenticate(std::string_view token) const = 0;
  // The team of `user`'s first token, if it has one (a local user's team).
  virtual std::optional<std::string> TeamOf(std::string_view user) const { return std::nullopt; }
};

class TokenRegistry : public Authenticator {
 public:
  // DIR/tokens; an empty registry when the file does not exist. Errors name the line.
  static Result<TokenRegistry> Load(const std::string& data_dir);
  // Who holds `token` (compared in constant time); nullopt for an unknown or empty token.
  std::optional<Principal> Authenticate(std::string_view token) const override;
  std::optional<std::string> TeamOf(std::string_view user) const override;
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    std::string token;
    Principal who;
  };
  std::vector<Entry> entries_;
};

// The daemon's tokens: DIR/tokens, read again when the file changes (checked at most once a
// second), so that `squeeze token add` takes effect without a restart. A file that has become
// unreadable keeps the tokens last read. Thread-safe.
class LiveTokens : public Authenticator {
 public:
  static Result<std::unique_ptr<LiveTokens>> Load(const std::string& data_dir);
  std::optional<Principal> Authenticate(std::string_view token) const override;
  std::optional<std::string> TeamOf(std::string_view user) const override;

 private:
  LiveTokens(std::string data_dir, TokenRegistry tokens, int64_t mtime_ns);
  void ReloadIfChanged() const;

  const std::string data_dir_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const TokenRegistry> tokens_;
  mutable int64_t mtime_ns_ = 0;
  mutable int64_t checked_at_ms_ = 0;
};

// Ensures an admin exists: when DIR/tokens holds no admin, creates one (for user `user`, the
// daemon's own account, team "admin"), appends it to DIR/tokens and writes DIR/admin.token.
// Returns the admin.token path and whether it was created now.
Result<std::pair<std::string, bool>> EnsureAdminToken(const std::string& data_dir,
                                                      const std::string& user);

// Adds a user token (role user or admin) and returns it. User and team: [A-Za-z0-9._-]{1,64}.
Result<std::string> AddToken(const std::string& data_dir, const std::string& user,
                             const std::string& team, bool admin);

// 32 random bytes from /dev/urandom, in hex.
Result<std::string> RandomToken();
// Whether `a` and `b` are the same, in a time that depends on `a`'s length only.
bool SameSecret(std::string_view a, std::string_view b);

// "Bearer TOKEN" -> TOKEN; nullopt for anything else.
std::optional<std::string_view> BearerToken(std::string_view authorization_header);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_ACCESS_H_
