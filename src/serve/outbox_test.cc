// The outbox's promises: different jobs' work runs in parallel, up to the number of workers and
// no further; one job's pieces run in the order given, one at a time; what each ended with is
// reported once; Close drops what has not begun and says how many.
#include "serve/outbox.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

namespace squeeze {
namespace {

// A gate the pieces wait at until the test opens it; counts how many wait at once.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  int inside = 0, most_inside = 0;
  Status Pass() {
    std::unique_lock l(mu);
    most_inside = std::max(most_inside, ++inside);
    cv.notify_all();
    cv.wait(l, [&] { return open; });
    --inside;
    return Status::Ok();
  }
  bool WaitInside(int n) {
    std::unique_lock l(mu);
    return cv.wait_for(l, std::chrono::seconds(10), [&] { return inside >= n; });
  }
  void Open() {
    std::lock_guard l(mu);
    open = true;
    cv.notify_all();
  }
};

TEST(OutboxTest, DifferentJobsRunInParallelUpToTheWorkers) {
  Gate gate;
  std::atomic<int> dones{0};
  Outbox outbox(3, [&](const Outbox::Done&) { ++dones; });
  for (JobId id = 1; id <= 5; ++id) {
    outbox.Push(id, 1, Outbox::Kind::kStart, [&] { return gate.Pass(); });
  }
  ASSERT_TRUE(gate.WaitInside(3)) << "three workers did not run three jobs' starts at once";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(outbox.Unfinished(), 5u);
  gate.Open();
  outbox.WaitIdle();
  EXPECT_EQ(gate.most_inside, 3) << "more pieces ran at once than there are workers";
  outbox.Close();  // joins the workers: each one's last on_done has returned
  EXPECT_EQ(dones.load(), 5);
  EXPECT_EQ(outbox.TakeDone().size(), 5u);
  EXPECT_TRUE(outbox.TakeDone().empty()) << "a result was reported twice";
  EXPECT_EQ(outbox.Unfinished(), 0u);
}

TEST(OutboxTest, OneJobsPiecesRunInOrderOneAtATime) {
  Outbox outbox(4, nullptr);
  std::mutex mu;
  std::vector<std::string> order;
  std::atomic<int> running{0}, most{0};
  auto piece = [&](std::string name) {
    return [&, name] {
      most = std::max(most.load(), ++running);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      {
        std::lock_guard l(mu);
        order.push_back(name);
      }
      --running;
      return name == "stop" ? Status::Error("job 7 is not running") : Status::Ok();
    };
  };
  outbox.Push(7, 1, Outbox::Kind::kStart, piece("start"));
  outbox.Push(7, 1, Outbox::Kind::kCheckpoint, piece("checkpoint"));
  outbox.Push(7, 1, Outbox::Kind::kStop, piece("stop"));
  outbox.WaitIdle();
  EXPECT_EQ(order, (std::vector<std::string>{"start", "checkpoint", "stop"}));
  EXPECT_EQ(most.load(), 1) << "two pieces of one job ran at once";
  std::vector<Outbox::Done> done = outbox.TakeDone();
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[0].kind, Outbox::Kind::kStart);
  EXPECT_TRUE(done[0].status.ok());
  EXPECT_EQ(done[2].kind, Outbox::Kind::kStop);
  EXPECT_EQ(done[2].status.message(), "job 7 is not running");
  EXPECT_EQ(done[2].job, 7);
}

TEST(OutboxTest, CloseDropsWhatHasNotBegunAndFinishesWhatHas) {
  Gate gate;
  auto outbox = std::make_unique<Outbox>(1, nullptr);
  std::atomic<int> ran{0};
  outbox->Push(1, 1, Outbox::Kind::kStart, [&] {
    ++ran;
    return gate.Pass();
  });
  for (JobId id = 2; id <= 4; ++id) {
    outbox->Push(id, 1, Outbox::Kind::kStart, [&] {
      ++ran;
      return Status::Ok();
    });
  }
  ASSERT_TRUE(gate.WaitInside(1));
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    gate.Open();
  });
  EXPECT_EQ(outbox->Close(), 3u);
  opener.join();
  EXPECT_EQ(ran.load(), 1) << "a dropped piece ran";
  outbox->Push(5, 1, Outbox::Kind::kStart, [&] {
    ++ran;
    return Status::Ok();
  });
  outbox.reset();
  EXPECT_EQ(ran.load(), 1) << "a piece given after Close ran";
}

}  // namespace
}  // namespace squeeze
