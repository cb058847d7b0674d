#include "serve/serve_limits.h"

#include <algorithm>

namespace squeeze {

Status ServeLimits::Validate() const {
  auto at_least = [](const char* flag, long long value, long long least) {
    if (value >= least) return Status::Ok();
    return Status::Error(std::string(flag) + ": " + std::to_string(value) + " is under " +
                         std::to_string(least));
  };
  for (Status s : {at_least("--api-workers", workers, 1),
                   at_least("--max-connections-per-peer", max_connections_per_peer, 1),
                   at_least("--max-connections", max_connections, 1),
                   at_least("--request-timeout", head_timeout_s, 1),
                   at_least("--body-timeout", body_timeout_s, 1),
                   at_least("--idle-timeout", idle_timeout_s, 1)}) {
    if (!s.ok()) return s;
  }
  if (workers > 1024) return Status::Error("--api-workers: " + std::to_string(workers) + " is over 1024");
  if (max_connections_per_peer > max_connections) {
    return Status::Error("--max-connections-per-peer: " + std::to_string(max_connections_per_peer) +
                         " is over --max-connections " + std::to_string(max_connections));
  }
  return Status::Ok();
}

ServeLimits ServeLimits::WithinOpenFiles(uint64_t open_files) const {
  ServeLimits out = *this;
  const uint64_t half = std::max<uint64_t>(open_files / 2, 1);
  if (static_cast<uint64_t>(out.max_connections) > half) out.max_connections = static_cast<int>(half);
  out.max_connections_per_peer = std::min(out.max_connections_per_peer, out.max_connections);
  return out;
}

std::string ServeLimits::Describe() const {
  return std::to_string(workers) + " workers (" + std::to_string(max_busy_per_peer()) +
         " at most for one peer), " + std::to_string(max_connections_per_peer) +
         " connections per peer, " + std::to_string(max_connections) + " in all; a request head " +
         std::to_string(max_head_bytes) + " bytes within " + std::to_string(head_timeout_s) +
         " s, a body " + std::to_string(max_body_bytes) + " bytes within " +
         std::to_string(body_timeout_s) + " s; idle connections closed after " +
         std::to_string(idle_timeout_s) + " s";
}

ConnectionCounter::Admit ConnectionCounter::TryOpen(const std::string& peer) {
  if (open_ >= limits_.max_connections) return Admit::kServerFull;
  int& mine = by_peer_[peer];
  if (mine >= limits_.max_connections_per_peer) return Admit::kPeerFull;
  ++mine;
  ++open_;
  return Admit::kOk;
}

void ConnectionCounter::Close(const std::string& peer) {
  const auto it = by_peer_.find(peer);
  if (it == by_peer_.end() || it->second == 0) return;
  --open_;
  if (--it->second == 0) by_peer_.erase(it);
}

bool ConnectionCounter::ShouldLog(const std::string& peer, int64_t now_s) {
  constexpr int64_t kEvery = 60;
  // Forget peers not refused for a while, so the map stays as small as the refusals are recent.
  if (logged_at_.size() > 4096) {
    std::erase_if(logged_at_, [now_s](const auto& e) { return now_s - e.second >= kEvery; });
  }
  const auto it = logged_at_.find(peer);
  if (it != logged_at_.end() && now_s - it->second < kEvery) return false;
  logged_at_[peer] = now_s;
  return true;
}

std::string ConnectionCounter::RefusalText(Admit why) const {
  if (why == Admit::kPeerFull) {
    return "too many connections from you: at most " +
           std::to_string(limits_.max_connections_per_peer) +
           " at once (squeeze serve --max-connections-per-peer); close some and try again";
  }
  return "the server holds its most connections, " + std::to_string(limits_.max_connections) +
         " (squeeze serve --max-connections); try again shortly";
}

int ConnectionCounter::open_of(const std::string& peer) const {
  const auto it = by_peer_.find(peer);
  return it == by_peer_.end() ? 0 : it->second;
}

}  // namespace squeeze
