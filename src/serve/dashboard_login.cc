#include "serve/dashboard_login.h"

#include <algorithm>

namespace squeeze {
namespace {

// Keeps at most `keep` - 1 of `user`'s entries (its oldest dropped), to make room for one.
void RoomFor(std::deque<DashboardLogins::Session>& entries, const std::string& user, size_t keep) {
  size_t mine = 0;
  for (const auto& e : entries) mine += e.who.user == user ? 1 : 0;
  for (auto it = entries.begin(); it != entries.end() && mine >= keep;) {
    if (it->who.user == user) {
      it = entries.erase(it);
      --mine;
    } else {
      ++it;
    }
  }
}

}  // namespace

Result<std::string> DashboardLogins::MintCode(const Principal& who, Time now) {
  Result<std::string> code = RandomToken();
  if (!code.ok()) return code.status();
  std::lock_guard lock(mu_);
  std::erase_if(codes_, [&](const Session& c) { return c.expires <= now; });
  RoomFor(codes_, who.user, kCodesPerUser);
  if (codes_.size() >= kMaxCodes) {
    return Status::Error(ErrorKind::kUnavailable,
                         "too many dashboard login codes are waiting to be used; try again in "
                         "a minute");
  }
  codes_.push_back({*code, who, now + kCodeLife});
  return *code;
}

std::optional<DashboardLogins::Session> DashboardLogins::Redeem(std::string_view code, Time now) {
  if (code.empty()) return std::nullopt;
  Result<std::string> token = RandomToken();
  if (!token.ok()) return std::nullopt;
  std::lock_guard lock(mu_);
  auto found = codes_.end();
  for (auto it = codes_.begin(); it != codes_.end(); ++it) {  // every code: no early exit
    if (SameSecret(it->token, code)) found = it;
  }
  if (found == codes_.end() || found->expires <= now) return std::nullopt;
  const Principal who = found->who;
  codes_.erase(found);  // good once
  std::erase_if(sessions_, [&](const Session& s) { return s.expires <= now; });
  RoomFor(sessions_, who.user, kSessionsPerUser);
  if (sessions_.size() >= kMaxSessions) sessions_.pop_front();
  sessions_.push_back({*token, who, now + kSessionLife});
  return sessions_.back();
}

std::optional<Principal> DashboardLogins::Authenticate(std::string_view token, Time now) const {
  if (token.empty()) return std::nullopt;
  std::lock_guard lock(mu_);
  const Session* found = nullptr;
  for (const Session& s : sessions_) {
    if (SameSecret(s.token, token)) found = &s;
  }
  if (found == nullptr || found->expires <= now) return std::nullopt;
  return found->who;
}

}  // namespace squeeze
