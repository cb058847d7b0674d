#include "serve/journal.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/testing/temp_dir.h"

namespace squeeze {
namespace {

constexpr Time kNow = Seconds(1'800'000'000);

struct Fixture {
  testing::TempDir dir{"squeeze-journal"};
  std::unique_ptr<JobStore> store =
      std::move(JobStore::Open(dir.path(), {.fsync_each_commit = false}).value());
  std::vector<std::string> logged;
  std::atomic<int> wakes{0};
  Journal journal{*store, [this](const std::string& line) { logged.push_back(line); },
                  [this] { ++wakes; }};
  Outbox outbox{1, nullptr};

  JobId Submit() {
    JobRequest r;
    r.spec.name = "j";
    r.command = {"true"};
    return *store->Submit(r, "bob", kNow);
  }
  JobState StateOf(JobId id) { return store->Get(id)->state; }
};

Effects::Write SetState(JobId id, JobState state, std::string reason) {
  return [=](JobStore& s) { return s.SetState(id, state, reason, kNow); };
}

TEST(JournalTest, AStartIsCarriedOutOnlyAfterItsRecordIsDurable) {
  Fixture f;
  const JobId id = f.Submit();
  std::atomic<int> state_seen_by_work{-1};
  Effects effects;
  effects.Start([id](JobStore& s) { return s.RecordStart(id, 1, {0}, kNow); }, f.outbox, id, 1,
                [&] {
                  // The backend's view: the store (its own read connection) knows the run.
                  state_seen_by_work = static_cast<int>(f.StateOf(id));
                  return Status::Ok();
                });
  const uint64_t ticket = f.journal.Append(std::move(effects));
  EXPECT_EQ(f.StateOf(id), JobState::kPending) << "appended is not carried out yet";
  EXPECT_TRUE(f.journal.CarryOut(ticket).ok());
  f.outbox.WaitIdle();
  EXPECT_EQ(state_seen_by_work.load(), static_cast<int>(JobState::kRunning));
  EXPECT_EQ(f.journal.stats().dispatches, 1u);
}

TEST(JournalTest, AStartWhoseRecordFailsIsNeverCarriedOutAndComesBack) {
  Fixture f;
  std::atomic<int> ran{0};
  Effects effects;
  const JobId missing = 4242;  // the store has no such job: its record fails
  effects.Start([=](JobStore& s) { return s.RecordStart(missing, 1, {0}, kNow); }, f.outbox,
                missing, 1, [&] {
                  ++ran;
                  return Status::Ok();
                });
  const Status s = f.journal.CarryOut(f.journal.Append(std::move(effects)));
  f.outbox.WaitIdle();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(ran.load(), 0);
  const std::vector<Journal::Unrecorded> back = f.journal.TakeUnrecorded();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].job, missing);
  EXPECT_EQ(back[0].attempt, 1);
  EXPECT_EQ(f.wakes.load(), 1) << "the next step should come soon";
  ASSERT_EQ(f.logged.size(), 1u);
  EXPECT_NE(f.logged[0].find("job 4242: cannot record its start"), std::string::npos);
  EXPECT_TRUE(f.journal.TakeUnrecorded().empty());
}

TEST(JournalTest, EverythingQueuedGoesInOneCommitInTheOrderItWasDecided) {
  Fixture f;
  const JobId a = f.Submit();
  const JobId b = f.Submit();
  std::vector<uint64_t> tickets;
  for (JobState state : {JobState::kFailed, JobState::kCancelled}) {
    Effects effects;
    effects.Record(SetState(a, state, "step"));
    effects.Record(SetState(b, state, "step"));
    tickets.push_back(f.journal.Append(std::move(effects)));
  }
  // The last ticket's CarryOut carries out both lists: one transaction for the four records.
  EXPECT_TRUE(f.journal.CarryOut(tickets[1]).ok());
  EXPECT_TRUE(f.journal.CarryOut(tickets[0]).ok()) << "carried out already";
  const Journal::Stats stats = f.journal.stats();
  EXPECT_EQ(stats.appended, 2u);
  EXPECT_EQ(stats.commits, 1u);
  EXPECT_EQ(stats.records, 4u);
  EXPECT_EQ(f.StateOf(a), JobState::kCancelled) << "the later decision is the last write";
  EXPECT_EQ(f.StateOf(b), JobState::kCancelled);
}

TEST(JournalTest, ATicketHearsOnlyItsOwnRecordsErrors) {
  Fixture f;
  const JobId a = f.Submit();
  Effects bad, good;
  bad.Record(SetState(999, JobState::kFailed, "no such job"));
  good.Record(SetState(a, JobState::kFailed, "held"));
  const uint64_t t1 = f.journal.Append(std::move(bad));
  const uint64_t t2 = f.journal.Append(std::move(good));
  EXPECT_TRUE(f.journal.CarryOut(t2).ok());
  EXPECT_FALSE(f.journal.CarryOut(t1).ok());
  EXPECT_EQ(f.StateOf(a), JobState::kFailed) << "one bad record holds back no other";
  EXPECT_TRUE(f.journal.TakeUnrecorded().empty()) << "not a start";
}

TEST(JournalTest, OneJobsWorkReachesItsOutboxInOrder) {
  Fixture f;
  std::vector<std::string> order;
  std::mutex mu;
  auto note = [&](std::string what) {
    return [&, what] {
      std::lock_guard lock(mu);
      order.push_back(what);
      return Status::Ok();
    };
  };
  Outbox wide(4, nullptr);
  Effects first, second;
  first.Dispatch(wide, 7, 1, Outbox::Kind::kStart, note("start"));
  second.Dispatch(wide, 7, 1, Outbox::Kind::kCheckpoint, note("checkpoint"));
  second.Dispatch(wide, 7, 1, Outbox::Kind::kStop, note("stop"));
  const uint64_t t1 = f.journal.Append(std::move(first));
  const uint64_t t2 = f.journal.Append(std::move(second));
  EXPECT_TRUE(f.journal.CarryOut(t2).ok());
  EXPECT_TRUE(f.journal.CarryOut(t1).ok());
  wide.WaitIdle();
  EXPECT_EQ(order, (std::vector<std::string>{"start", "checkpoint", "stop"}));
  EXPECT_EQ(f.journal.stats().commits, 0u) << "no records, no transaction";
}

TEST(JournalTest, ManyThreadsShareCommitsAndEachReturnsOnlyOnceItsOwnIsDurable) {
  Fixture f;
  constexpr int kThreads = 8, kEach = 50;
  std::vector<std::vector<JobId>> ids(kThreads);
  for (auto& mine : ids) {
    for (int i = 0; i < kEach; ++i) mine.push_back(f.Submit());
  }
  std::atomic<int> not_durable{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (JobId id : ids[t]) {
        Effects effects;
        effects.Record(SetState(id, JobState::kFailed, "held"));
        if (!f.journal.CarryOut(f.journal.Append(std::move(effects))).ok()) ++not_durable;
        if (f.StateOf(id) != JobState::kFailed) ++not_durable;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(not_durable.load(), 0);
  const Journal::Stats stats = f.journal.stats();
  EXPECT_EQ(stats.appended, static_cast<uint64_t>(kThreads * kEach));
  EXPECT_EQ(stats.records, static_cast<uint64_t>(kThreads * kEach));
  EXPECT_LE(stats.commits, stats.appended);
  EXPECT_TRUE(f.journal.CarryOutAll().ok());
}

TEST(JournalTest, WithAThreadOfItsOwnAKickCarriesOutAndStopCarriesOutWhatIsLeft) {
  Fixture f;
  const JobId a = f.Submit();
  const JobId b = f.Submit();
  f.journal.StartThread();
  ASSERT_TRUE(f.journal.threaded());
  Effects first;
  first.Record(SetState(a, JobState::kFailed, "kicked"));
  f.journal.Append(std::move(first));
  f.journal.Kick();  // returns at once; the journal's thread commits
  for (int i = 0; i < 500 && f.StateOf(a) != JobState::kFailed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(f.StateOf(a), JobState::kFailed) << "the kick was not carried out";
  Effects second;
  second.Record(SetState(b, JobState::kCancelled, "left"));
  f.journal.Append(std::move(second));  // no kick: the stop carries it out
  f.journal.StopThread();
  EXPECT_FALSE(f.journal.threaded());
  EXPECT_EQ(f.StateOf(b), JobState::kCancelled) << "the stop left a record behind";
  // Without the thread, CarryOut works as before.
  Effects third;
  third.Record(SetState(a, JobState::kCancelled, "after"));
  EXPECT_TRUE(f.journal.CarryOut(f.journal.Append(std::move(third))).ok());
  EXPECT_EQ(f.StateOf(a), JobState::kCancelled);
}

TEST(JournalTest, NoEffectsNoTicket) {
  Fixture f;
  EXPECT_EQ(f.journal.Append(Effects()), 0u);
  EXPECT_TRUE(f.journal.CarryOut(0).ok());
  EXPECT_EQ(f.journal.stats().appended, 0u);
}

}  // namespace
}  // namespace squeeze
