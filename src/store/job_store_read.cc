// JobStore's reads: one job, filtered pages, the unfinished jobs a restart resumes, counts and
// history. They run on the reader connection and see the last committed state.
#include <cstdlib>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/safe_text.h"
#include "store/job_store.h"
#include "store/request_json.h"
#include "store/store_time.h"

namespace squeeze {
namespace {

constexpr const char* kColumns =
    "SELECT id, owner, state, submitted_at, started_at, ended_at, exit_code, attempts, "
    "preemptions, last_checkpoint, reason, run_gpus, request, failures, not_before, waited, "
    "ran, held, reason_detail, purged_at, gpu_ran, ran_by_width FROM jobs ";

// `ran_by_width` as the store wrote it ({"8": ms, ...}); what is not a width and a time is
// left out (a row from before it: '').
std::map<int, Time> RanByWidth(const std::string& text) {
  std::map<int, Time> out;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return out;
  for (const auto& [key, value] : j.items()) {
    char* end = nullptr;
    const long width = std::strtol(key.c_str(), &end, 10);
    if (*end != '\0' || width <= 0 || width > 1 << 20 || !value.is_number()) continue;
    out[static_cast<int>(width)] = FromStoreMillis(value.get<int64_t>());
  }
  return out;
}

std::optional<int> OptionalInt32(const std::optional<int64_t>& v) {
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

Result<StoredJob> RowToRecord(const SqliteStmt& row,
                              const std::function<bool(const StoredJob&)>& wants_request) {
  StoredJob r;
  r.id = row.Int(0);
  r.owner = row.Text(1);
  const std::string state = row.Text(2);
  auto parsed = ParseJobState(state);
  if (!parsed) {
    return Status::Error("job " + std::to_string(r.id) + " has unknown state '" + state + "'");
  }
  r.state = *parsed;
  r.submitted_at = FromStoreMillis(row.Int(3));
  r.started_at = FromStoreMillis(row.OptionalInt(4));
  r.ended_at = FromStoreMillis(row.OptionalInt(5));
  r.exit_code = OptionalInt32(row.OptionalInt(6));
  r.attempts = static_cast<int>(row.Int(7));
  r.preemptions = static_cast<int>(row.Int(8));
  r.last_checkpoint = FromStoreMillis(row.OptionalInt(9));
  r.reason = ValidUtf8(row.Text(10));  // what a row an older squeeze left holds, made UTF-8
  auto gpus = GpusFromJson(row.Text(11));
  if (!gpus.ok()) return gpus.status().WithContext("job " + std::to_string(r.id));
  r.gpus = std::move(gpus).value();
  if (!wants_request || wants_request(r)) {
    auto request = RequestFromJson(row.Text(12));
    if (!request.ok()) return request.status().WithContext("job " + std::to_string(r.id));
    r.request = std::move(request).value();
  }
  r.request.spec.id = r.id;
  r.request.spec.submit_time = r.submitted_at;
  r.failures = static_cast<int>(row.Int(13));
  r.not_before = FromStoreMillis(row.OptionalInt(14));
  r.waited = FromStoreMillis(row.Int(15));
  r.ran = FromStoreMillis(row.Int(16));
  r.held = row.Int(17) != 0;
  r.reason_detail = ValidUtf8(row.Text(18));
  r.details_purged_at = FromStoreMillis(row.OptionalInt(19));
  r.gpu_ran = FromStoreMillis(row.Int(20));
  r.ran_by_width = RanByWidth(row.Text(21));
  return r;
}

}  // namespace

Status JobStore::QueryEach(const std::string& where,
                          const std::function<void(SqliteStmt&)>& bind,
                          const std::function<Status(StoredJob&&)>& each,
                          const std::function<bool(const StoredJob&)>& wants_request) {
  std::lock_guard lock(read_mu_);
  auto stmt = reader_->Prepare(kColumns + where);
  if (!stmt.ok()) return stmt.status();
  bind(*stmt);
  while (true) {
    auto row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
    auto record = RowToRecord(*stmt, wants_request);
    if (!record.ok()) return record.status();
    if (Status s = each(std::move(record).value()); !s.ok()) return s;
  }
}

Result<std::vector<StoredJob>> JobStore::Query(
    const std::string& where, const std::function<void(SqliteStmt&)>& bind,
    const std::function<bool(const StoredJob&)>& wants_request) {
  std::vector<StoredJob> records;
  Status s = QueryEach(
      where, bind,
      [&records](StoredJob&& r) {
        records.push_back(std::move(r));
        return Status::Ok();
      },
      wants_request);
  if (!s.ok()) return s;
  return records;
}

Result<StoredJob> JobStore::Get(JobId id) {
  auto records = Query("WHERE id=?1", [id](SqliteStmt& s) { s.Bind(1, id); });
  if (!records.ok()) return records.status();
  if (records->empty()) return Status::NotFound("job " + std::to_string(id) + " not found");
  return std::move(records->front());
}

Result<std::map<JobState, int>> JobStore::CountStates(JobId first, JobId last) {
  std::lock_guard lock(read_mu_);
  auto stmt = reader_->Prepare(
      "SELECT state, COUNT(*) FROM jobs WHERE id BETWEEN ?1 AND ?2 GROUP BY state");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, first);
  stmt->Bind(2, last);
  std::map<JobState, int> out;
  while (true) {
    auto row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return out;
    auto state = ParseJobState(stmt->Text(0));
    if (!state) return Status::Error("a job has unknown state '" + stmt->Text(0) + "'");
    out[*state] = static_cast<int>(stmt->Int(1));
  }
}

Result<std::vector<StoredJob>> JobStore::List(const ListFilter& filter) {
  std::string where = "WHERE id > ?1";
  std::vector<std::string> texts;
  auto add = [&](const std::string& value) {
    texts.push_back(value);
    return std::string("?").append(std::to_string(texts.size() + 1));
  };
  if (!filter.states.empty()) {
    std::string in;
    for (JobState s : filter.states) {
      if (!in.empty()) in += ",";
      in += add(std::string(JobStateName(s)));
    }
    where += " AND state IN (" + in + ")";
  }
  if (filter.owner) where += " AND owner = " + add(*filter.owner);
  if (filter.team) where += " AND team = " + add(*filter.team);
  where += filter.latest_end_first ? " AND ended_at IS NOT NULL ORDER BY ended_at DESC, id DESC"
                                   : " ORDER BY id";
  const int limit_index = static_cast<int>(texts.size()) + 2;
  if (filter.limit > 0) where += " LIMIT ?" + std::to_string(limit_index);
  return Query(
      where,
      [&](SqliteStmt& s) {
        s.Bind(1, filter.after_id);
        for (size_t i = 0; i < texts.size(); ++i) s.Bind(static_cast<int>(i) + 2, texts[i]);
        if (filter.limit > 0) s.Bind(limit_index, static_cast<int64_t>(filter.limit));
      },
      filter.wants_request);
}

namespace {
constexpr const char* kUnfinished =
    "WHERE state IN ('pending', 'running', 'checkpointing') ORDER BY id";
}  // namespace

Result<std::vector<StoredJob>> JobStore::LoadUnfinished() {
  return Query(kUnfinished, [](SqliteStmt&) {});
}

Status JobStore::ForEachUnfinished(const std::function<Status(StoredJob&&)>& each) {
  return QueryEach(kUnfinished, [](SqliteStmt&) {}, each);
}

Result<std::map<JobState, int64_t>> JobStore::CountByState() {
  std::lock_guard lock(read_mu_);
  auto stmt = reader_->Prepare("SELECT state, COUNT(*) FROM jobs GROUP BY state");
  if (!stmt.ok()) return stmt.status();
  std::map<JobState, int64_t> counts;
  while (true) {
    auto row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    if (auto state = ParseJobState(stmt->Text(0))) counts[*state] = stmt->Int(1);
  }
  return counts;
}

Result<std::vector<WaitingByOwner>> JobStore::CountWaiting() {
  std::lock_guard lock(read_mu_);
  auto stmt = reader_->Prepare(
      "SELECT owner, team, COUNT(*) FROM jobs WHERE state='pending' GROUP BY owner, team");
  if (!stmt.ok()) return stmt.status();
  std::vector<WaitingByOwner> out;
  while (true) {
    auto row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return out;
    out.push_back({stmt->Text(0), stmt->Text(1), stmt->Int(2)});
  }
}

namespace {

// The rows of a bound "SELECT seq, job_id, at, kind, text, detail FROM events ..." statement.
Result<std::vector<JobEvent>> EventRows(SqliteStmt& stmt) {
  std::vector<JobEvent> events;
  while (true) {
    auto row = stmt.Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    events.push_back({stmt.Int(0), stmt.Int(1), FromStoreMillis(stmt.Int(2)), stmt.Text(3), ValidUtf8(stmt.Text(4)),
                      ValidUtf8(stmt.Text(5))});
  }
  return events;
}

}  // namespace

Result<std::vector<JobEvent>> JobStore::Events(JobId id) {
  std::lock_guard lock(read_mu_);
  auto stmt = reader_->Prepare(
      "SELECT seq, job_id, at, kind, text, detail FROM events WHERE job_id=?1 ORDER BY seq");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, id);
  return EventRows(*stmt);
}

Result<std::vector<JobEvent>> JobStore::RunEvents(Time from, Time to) {
  std::lock_guard lock(read_mu_);
  // Every job with an event in the range, or running through it without one.
  auto stmt = reader_->Prepare(
      "SELECT seq, job_id, at, kind, text, detail FROM events "
      "WHERE kind IN ('submit','start','exit','end') AND at < ?2 AND job_id IN ("
      "SELECT job_id FROM events WHERE at >= ?1 AND at < ?2 "
      "UNION SELECT id FROM jobs WHERE state IN ('running','checkpointing')) "
      "ORDER BY seq");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, ToStoreMillis(from));
  stmt->Bind(2, ToStoreMillis(to));
  return EventRows(*stmt);
}

Result<std::vector<NodeEvent>> JobStore::NodeEvents(int64_t limit) {
  std::lock_guard lock(read_mu_);
  auto stmt = reader_->Prepare(
      "SELECT seq, at, node, kind, text FROM (SELECT * FROM node_events ORDER BY seq DESC "
      "LIMIT ?1) ORDER BY seq");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, limit);
  std::vector<NodeEvent> events;
  while (true) {
    auto row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    events.push_back({stmt->Int(0), FromStoreMillis(stmt->Int(1)), stmt->Text(2), stmt->Text(3), stmt->Text(4)});
  }
  return events;
}

}  // namespace squeeze
