// `squeeze dashboard`: a local user opens the dashboard without pasting a token. Over the
// daemon's Unix socket (where the kernel says who calls) the CLI asks for a login code: 32
// random bytes, for that user, good once and for 60 s. The dashboard's page trades it for a
// session token (32 random bytes, 12 h) that the API then takes as it takes a token from
// DIR/tokens. Both live in memory only: a restart ends every session. Bounded per user (4
// codes, 64 sessions: a user's oldest go first, never another's) and in all (64 codes: more
// are refused until some expire; 1024 sessions). Thread-safe; `now` is given by the caller.
#ifndef SQUEEZE_SERVE_DASHBOARD_LOGIN_H_
#define SQUEEZE_SERVE_DASHBOARD_LOGIN_H_

#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/types.h"
#include "serve/access.h"

namespace squeeze {

class DashboardLogins {
 public:
  static constexpr Time kCodeLife = 60 * kSecond;
  static constexpr Time kSessionLife = 12 * kHour;
  static constexpr size_t kMaxCodes = 64;
  static constexpr size_t kMaxSessions = 1024;
  static constexpr size_t kCodesPerUser = 4;
  static constexpr size_t kSessionsPerUser = 64;

  // A new code for `who`; an error when /dev/urandom cannot be read or kMaxCodes are live.
  Result<std::string> MintCode(const Principal& who, Time now);
  // The session a code opens, once: {token, who}; nullopt for an unknown, used or expired
  // code.
  struct Session {
    std::string token;
    Principal who;
    Time expires = 0;
  };
  std::optional<Session> Redeem(std::string_view code, Time now);
  // Who holds session `token` (compared in constant time); nullopt when none or expired.
  std::optional<Principal> Authenticate(std::string_view token, Time now) const;

 private:
  mutable std::mutex mu_;
  std::deque<Session> codes_;     // a code is a Session whose token is the code
  std::deque<Session> sessions_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_DASHBOARD_LOGIN_H_
