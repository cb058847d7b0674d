#include "slurm/slurm_watch.h"

#include <chrono>

#include "exec/command_runner.h"

namespace squeeze {
namespace {

// stdout of a Slurm command that answered, or why it did not.
Result<std::string> Ask(const std::vector<std::string>& argv, const SlurmWatchOptions& o) {
  std::map<std::string, std::string> env;
  if (!o.conf.empty()) env["SLURM_CONF"] = o.conf;
  auto out = RunCommand(argv, env, o.timeout_ms, kBackgroundNicer);
  if (!out.ok()) return out.status();
  if (out->timed_out) {
    return Status::Error(CommandLine(argv) + ": no answer within " +
                         std::to_string(o.timeout_ms / 1000) + " s");
  }
  if (out->exit_code != 0) {
    std::string err = out->err.substr(0, 300);
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    return Status::Error(CommandLine(argv) + ": exit " + std::to_string(out->exit_code) + ": " +
                         err);
  }
  return out->out;
}

// What a command prints, parsed by `parse` into *out; or why it could not be had.
template <typename T>
Status Read(const std::vector<std::string>& argv, const SlurmWatchOptions& o,
            Result<T> (*parse)(std::string_view), T* out) {
  auto text = Ask(argv, o);
  if (!text.ok()) return text.status();
  auto parsed = parse(*text);
  if (!parsed.ok()) return parsed.status();
  *out = std::move(*parsed);
  return Status::Ok();
}

}  // namespace

SlurmWatch::SlurmWatch(SlurmWatchOptions options) : options_(std::move(options)) {
  if (options_.interval_ms > 0) thread_ = std::thread([this] { Loop(); });
}

SlurmWatch::~SlurmWatch() {
  {
    std::lock_guard l(mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int64_t SlurmWatch::SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::shared_ptr<const SlurmLook> SlurmWatch::Latest() const {
  std::lock_guard l(mu_);
  return latest_;
}

std::shared_ptr<const SlurmLook> SlurmWatch::Look() {
  if (options_.interval_ms > 0) {
    if (auto latest = Latest()) return latest;
  }
  return LookNow();
}

std::shared_ptr<const SlurmLook> SlurmWatch::LookNow() {
  std::lock_guard one(look_mu_);
  auto look = std::make_shared<SlurmLook>();
  look->began_ms = SteadyMs();
  Status status = Read({"squeue", "--json"}, options_, ParseSqueueJson, &look->jobs);
  // A controller that did not answer squeue is not asked twice.
  if (status.ok()) status = Read({"sinfo", "--json"}, options_, ParseSinfoJson, &look->nodes);
  look->at = FromMilliseconds(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
  look->reachable = status.ok();
  if (!status.ok()) look->error = status.message();
  std::lock_guard l(mu_);
  look->seq = latest_ ? latest_->seq + 1 : 1;
  if (!look->reachable) {
    look->unreachable_since =
        latest_ && latest_->unreachable_since ? latest_->unreachable_since : look->at;
  }
  latest_ = look;
  return latest_;
}

void SlurmWatch::Loop() {
  while (true) {
    (void)LookNow();
    std::unique_lock l(mu_);
    if (stop_cv_.wait_for(l, std::chrono::milliseconds(options_.interval_ms),
                          [&] { return stop_; })) {
      return;
    }
  }
}

}  // namespace squeeze
