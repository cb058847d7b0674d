#include "serve/waiting_counts.h"

namespace squeeze {
namespace {

int64_t Get(const WaitingCounts::ByName& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() ? 0 : it->second;
}

}  // namespace

void WaitingCounts::Take(ByName& from, const std::string& name, int64_t n) {
  auto it = from.find(name);
  if (it == from.end()) return;
  it->second -= n;
  if (it->second <= 0) from.erase(it);
}

WaitingCounts::Counts WaitingCounts::Of(const std::string& user, const std::string& team) const {
  std::lock_guard lock(mu_);
  return {Get(base_user_, user) + Get(reserved_user_, user),
          Get(base_team_, team) + Get(reserved_team_, team)};
}

Status WaitingCounts::Reserve(const std::string& user, const std::string& team, int64_t n,
                              const std::function<Status(const Counts&)>& decide) {
  std::lock_guard lock(mu_);
  const Counts now{Get(base_user_, user) + Get(reserved_user_, user),
                   Get(base_team_, team) + Get(reserved_team_, team)};
  if (Status s = decide(now); !s.ok()) return s;
  reserved_user_[user] += n;
  reserved_team_[team] += n;
  return Status::Ok();
}

void WaitingCounts::Unreserve(const std::string& user, const std::string& team, int64_t n) {
  std::lock_guard lock(mu_);
  Take(reserved_user_, user, n);
  Take(reserved_team_, team, n);
}

void WaitingCounts::Arrived(const std::string& user, const std::string& team) {
  std::lock_guard lock(mu_);
  ++arrived_user_[user];
  ++arrived_team_[team];
}

void WaitingCounts::Rebase(ByName by_user, ByName by_team) {
  std::lock_guard lock(mu_);
  base_user_ = std::move(by_user);
  base_team_ = std::move(by_team);
  for (const auto& [name, n] : arrived_user_) Take(reserved_user_, name, n);
  for (const auto& [name, n] : arrived_team_) Take(reserved_team_, name, n);
  arrived_user_.clear();
  arrived_team_.clear();
}

}  // namespace squeeze
