// Safe text through the API's service with its real parts (a SQLite store, the local executor
// running real processes on virtual GPUs): a reason built from private fields reaches only the
// job's owner and the admins, a checkpoint marker's text likewise, and text that is not UTF-8
// (a log, a row an older squeeze left) is answered with U+FFFD instead of failing.
#include <chrono>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/safe_text.h"
#include "serve/testing/live_service.h"
#include "store/sqlite_db.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class QueueServiceTextTest : public ::testing::Test {
 protected:
  static LiveQueueOptions NoRetries() {
    LiveQueueOptions options;
    options.max_retries = 0;
    return options;
  }

  // bob's job of `fields` (its workdir the test's).
  JobId Submit(const std::string& fields) {
    ApiResult r = service_->Submit(bob_, R"({"workdir": ")" + work_ + R"(", )" + fields + "}");
    EXPECT_FALSE(r.error) << (r.error ? r.error->message : "");
    return r.error ? 0 : r.value["id"].get<JobId>();
  }
  bool StepUntil(const std::function<bool()>& done) {
    for (int i = 0; i < 400; ++i) {
      queue_->Step(now_);
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      now_ += kSecond;
    }
    return false;
  }
  // Everything `who` is told of job `id`: the list, the job, why, as JSON text.
  std::string Seen(const Principal& who, JobId id) {
    ApiResult list = service_->List(who, {{"state", "pending,running,done,failed"}});
    ApiResult one = service_->Get(who, id);
    ApiResult why = service_->Why(who, id);
    EXPECT_FALSE(list.error || one.error || why.error);
    return list.text + "\n" + one.value.dump() + "\n" + why.value.dump();
  }

  ::squeeze::testing::LiveService live_{"squeeze-service-text", "2", "fifo", NoRetries()};
  const std::string& work_ = live_.work;
  const std::unique_ptr<JobStore>& store_ = live_.store;
  const std::unique_ptr<LiveQueue>& queue_ = live_.queue;
  const std::unique_ptr<QueueService>& service_ = live_.service;
  const std::string dir_ = live_.dir.path();
  Time& now_ = live_.now;
  const Principal bob_{"bob", "ml", false};
  const Principal alice_{"alice", "ml", false};
  const Principal admin_{"root", "admin", true};
};

// The issue's case: a run that fails on a private path. Alice's list, show and why hold
// neither the path nor the command; bob's and an admin's tell him what failed.
TEST_F(QueueServiceTextTest, AReasonBuiltFromPrivatePathsReachesOnlyTheOwnerAndAdmins) {
  const std::string secret = work_ + "/secret-project/no-such-dir/out.txt";
  const JobId id = Submit(R"("name": "train", "command": ["true"], "output": ")" + secret + "\"");
  ASSERT_TRUE(StepUntil([&] { return store_->Get(id)->state == JobState::kFailed; }));

  const std::string alices = Seen(alice_, id);
  EXPECT_THAT(alices, Not(HasSubstr("secret-project")));
  EXPECT_THAT(alices, HasSubstr("the output file could not be opened (exit 127)"));
  for (const Principal& who : {bob_, admin_}) {
    const std::string theirs = Seen(who, id);
    EXPECT_THAT(theirs, HasSubstr("cannot open the output file '" + secret + "'"));
  }
  // The event of the run's end, likewise.
  EXPECT_THAT(service_->Get(alice_, id).value["history"].dump(),
              HasSubstr("exit code 127 -> failed: the output file could not be opened"));
}

// A checkpoint marker's text is the job's (the issue: a marker linked to a token file put the
// token in the history every user saw); an older store's event with it in its text, too.
TEST_F(QueueServiceTextTest, AMarkersTextIsShownOnlyToTheOwnerAndAdmins) {
  const JobId id = Submit(
      R"("command": ["bash", "-c", "echo token-3f9a1c2e > $SQUEEZE_CHECKPOINT_DIR/COMPLETE.tmp && mv $SQUEEZE_CHECKPOINT_DIR/COMPLETE.tmp $SQUEEZE_CHECKPOINT_DIR/COMPLETE; sleep 2"],
          "checkpointable": true)");
  ASSERT_TRUE(StepUntil([&] { return store_->Get(id)->last_checkpoint.has_value(); }));
  EXPECT_THAT(service_->Get(alice_, id).value["history"].dump(), Not(HasSubstr("token-3f9a")));
  EXPECT_THAT(service_->Get(alice_, id).value["history"].dump(), HasSubstr("checkpoint saved"));
  EXPECT_THAT(service_->Get(bob_, id).value["history"].dump(),
              HasSubstr("checkpoint saved: token-3f9a1c2e"));
  ASSERT_TRUE(store_->AppendEvent(id, now_, "checkpoint", "checkpoint saved: old-token").ok());
  EXPECT_THAT(service_->Get(alice_, id).value["history"].dump(), Not(HasSubstr("old-token")));
  EXPECT_THAT(service_->Get(bob_, id).value["history"].dump(), HasSubstr("old-token"));
}

// Text that is not UTF-8 in a log, or in a row an older squeeze (or a hand) left: the answer
// is JSON with U+FFFD, never an exception (the 500 of the issue).
TEST_F(QueueServiceTextTest, TextThatIsNotUtf8IsAnsweredWithReplacementCharacters) {
  const JobId id = Submit(R"("command": ["printf", "ok \\377\\376 done\\n"])");
  ASSERT_TRUE(StepUntil([&] { return store_->Get(id)->state == JobState::kDone; }));
  ApiResult log = service_->Log(bob_, id, {});
  ASSERT_FALSE(log.error) << log.error->message;
  const std::string text = log.value["text"].get<std::string>();
  EXPECT_THAT(text, HasSubstr("ok \xEF\xBF\xBD\xEF\xBF\xBD done"));
  EXPECT_EQ(log.value["next_from_byte"], log.value["size"]);
  EXPECT_NO_THROW((void)log.value.dump());

  {
    auto db = SqliteDb::Open(dir_ + "/squeeze.db");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("UPDATE jobs SET reason = CAST(X'1B5B324A6F6C64FF' AS TEXT); "
                            "UPDATE events SET text = CAST(X'7374657020FE' AS TEXT)")
                    .ok());  // "\x1b[2Jold\xff", "step \xfe"
  }
  ApiResult list = service_->List(alice_, {{"state", "done"}});
  ASSERT_FALSE(list.error);
  const nlohmann::json page = nlohmann::json::parse(list.text);  // throws if not UTF-8
  EXPECT_EQ(page["jobs"][0]["reason"], "\x1b[2Jold\xEF\xBF\xBD");
  ApiResult one = service_->Get(alice_, id);
  ASSERT_FALSE(one.error);
  const std::string dumped =
      one.value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  EXPECT_EQ(InvalidUtf8At(dumped), std::nullopt);
  EXPECT_THAT(dumped, HasSubstr("step \xEF\xBF\xBD"));
}

}  // namespace
}  // namespace squeeze
