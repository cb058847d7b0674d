#include "config/job_checkpoint_store.h"

#include <charconv>
#include <cmath>

#include "config/job_values.h"

namespace squeeze {
namespace {

constexpr int kMaxKeep = 1000;

class StoreReader {
 public:
  explicit StoreReader(const std::string& source) : source_(source) {}

  Result<CheckpointStore> Read(const JobNode& n) {
    CheckpointStore store;
    if (n.kind == JobNode::Kind::kScalar) {
      if (Status s = Url(n, "checkpoint_store", store); !s.ok()) return s;
      return store;
    }
    if (n.kind != JobNode::Kind::kMap) {
      return Error(n, "checkpoint_store",
                   "expected an s3:// URL or a map (url, endpoint, region, credentials, "
                   "profile, keep, checkpoint_size, upload_gbps, max_upload_gbps), got " +
                       std::string(JobNodeKindName(n.kind)));
    }
    for (const JobEntry& e : n.entries) {
      const std::string field = "checkpoint_store." + e.key;
      if (e.value.kind == JobNode::Kind::kNull) continue;
      Status s = Status::Ok();
      if (e.key == "url") {
        s = Url(e.value, field, store);
      } else if (e.key == "endpoint") {
        s = Text(e.value, field, store.endpoint);
        if (s.ok()) s = Checked(e.value, field, CheckStoreEndpoint(store.endpoint));
      } else if (e.key == "region") {
        s = Text(e.value, field, store.region);
      } else if (e.key == "credentials") {
        s = Text(e.value, field, store.credentials);
        if (s.ok() && store.credentials.front() != '/') {
          s = Error(e.value, field, "'" + store.credentials + "' is not an absolute path (the "
                    "job reads it as its owner, wherever it runs)");
        }
      } else if (e.key == "profile") {
        s = Text(e.value, field, store.profile);
      } else if (e.key == "keep") {
        s = Keep(e.value, field, store);
      } else if (e.key == "checkpoint_size") {
        s = Size(e.value, field, store);
      } else if (e.key == "upload_gbps") {
        s = Gbps(e.value, field, store.upload_gbps);
      } else if (e.key == "max_upload_gbps") {
        s = Gbps(e.value, field, store.max_upload_gbps);
      } else {
        return Error(e.where.empty() ? source_ : e.where, "",
                     "unknown field '" + field + "' (known: url, endpoint, region, "
                     "credentials, profile, keep, checkpoint_size, upload_gbps, max_upload_gbps)");
      }
      if (!s.ok()) return s;
    }
    if (!store.named()) {
      return Error(n, "checkpoint_store.url", "required: where the checkpoints go (s3://BUCKET/PREFIX)");
    }
    return store;
  }

 private:
  Status Error(const std::string& where, std::string_view field, const std::string& message) const {
    std::string text = (where.empty() ? source_ : where) + ": ";
    if (!field.empty()) text.append(field).append(": ");
    return Status::Error(text + message);
  }
  Status Error(const JobNode& n, std::string_view field, const std::string& message) const {
    return Error(n.where, field, message);
  }
  Status Checked(const JobNode& n, std::string_view field, const Status& s) const {
    return s.ok() ? s : Error(n, field, s.message());
  }
  Status Text(const JobNode& n, std::string_view field, std::string& out) const {
    if (n.kind != JobNode::Kind::kScalar) {
      return Error(n, field, "expected a single value, got " + std::string(JobNodeKindName(n.kind)));
    }
    if (n.text.empty()) return Error(n, field, "is empty");
    for (char c : n.text) {
      if (static_cast<unsigned char>(c) < 0x20) return Error(n, field, "has a control character");
    }
    out = n.text;
    return Status::Ok();
  }
  Status Url(const JobNode& n, std::string_view field, CheckpointStore& store) const {
    if (Status s = Text(n, field, store.url); !s.ok()) return s;
    return Checked(n, field, CheckStoreUrl(store.url));
  }
  Status Keep(const JobNode& n, std::string_view field, CheckpointStore& store) const {
    std::string text;
    if (Status s = Text(n, field, text); !s.ok()) return s;
    int keep = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), keep);
    if (ec != std::errc() || end != text.data() + text.size() || keep < 1 || keep > kMaxKeep) {
      return Error(n, field, "value '" + text + "' is not a whole number from 1 to " +
                                 std::to_string(kMaxKeep));
    }
    store.keep = keep;
    return Status::Ok();
  }
  Status Size(const JobNode& n, std::string_view field, CheckpointStore& store) const {
    std::string text;
    if (Status s = Text(n, field, text); !s.ok()) return s;
    Result<int64_t> mib = ParseMemoryMib(text);
    if (!mib.ok()) return Error(n, field, mib.status().message());
    store.checkpoint_bytes = *mib * (int64_t{1} << 20);
    return Status::Ok();
  }
  Status Gbps(const JobNode& n, std::string_view field, double& out) const {
    std::string text;
    if (Status s = Text(n, field, text); !s.ok()) return s;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(v) || v <= 0 || v > 1e4) {
      return Error(n, field, "value '" + text + "' is not a number of gigabits per second "
                             "above 0 (at most 10000)");
    }
    out = v;
    return Status::Ok();
  }

  const std::string& source_;
};

}  // namespace

Result<CheckpointStore> ReadCheckpointStore(const JobNode& node, const std::string& source) {
  return StoreReader(source).Read(node);
}

}  // namespace squeeze
