#include "exec/supervisor_spec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

RunSpec SomeRun() {
  RunSpec s;
  s.data_dir = "/var/lib/squeeze";
  s.id = 12;
  s.attempt = 3;
  s.workdir = "/home/alice/x y";
  s.user = "alice";
  s.command = {"python3", "-c", "print('a\nb')", ""};
  s.env = {"LD_PRELOAD=/home/alice/evil.so", "A=b=c", "EMPTY="};
  s.output = "/home/alice/out.txt";
  s.append = true;
  s.cgroup_parent = "/sys/fs/cgroup/squeeze-1";
  s.cpu_milli = 2500;
  s.memory_bytes = int64_t{3} << 30;
  s.max_log_bytes = 1 << 20;
  s.leftover_grace_s = 7;
  return s;
}

TEST(SupervisorSpecTest, ARunTravelsWholeWithNewlinesEmptyValuesAndEqualsSigns) {
  const RunSpec in = SomeRun();
  Result<RunSpec> out = DecodeRunSpec(EncodeRunSpec(in));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->data_dir, in.data_dir);
  EXPECT_EQ(out->id, 12);
  EXPECT_EQ(out->attempt, 3);
  EXPECT_EQ(out->workdir, in.workdir);
  EXPECT_EQ(out->user, "alice");
  EXPECT_EQ(out->command, in.command);
  EXPECT_EQ(out->env, in.env);
  EXPECT_EQ(out->output, in.output);
  EXPECT_EQ(out->error, "");
  EXPECT_TRUE(out->append);
  EXPECT_EQ(out->cgroup_parent, in.cgroup_parent);
  EXPECT_EQ(out->cpu_milli, 2500);
  EXPECT_EQ(out->memory_bytes, in.memory_bytes);
  EXPECT_EQ(out->max_log_bytes, 1 << 20);
  EXPECT_EQ(out->leftover_grace_s, 7);
}

TEST(SupervisorSpecTest, ChecksAndReadsTravelToo) {
  Result<CheckSpec> check =
      DecodeCheckSpec(EncodeCheckSpec({"bob", "/w", "/opt/bin:/usr/bin", {"train", "--x"}}));
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_EQ(check->user, "bob");
  EXPECT_EQ(check->path, "/opt/bin:/usr/bin");
  EXPECT_EQ(check->command, (std::vector<std::string>{"train", "--x"}));
  Result<ReadSpec> read = DecodeReadSpec(EncodeReadSpec({"bob", "/home/bob/out", -1, 4096}));
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->from, -1);
  EXPECT_EQ(read->max, 4096);
}

TEST(SupervisorSpecTest, BrokenInputIsRefusedNamingWhatIsWrong) {
  using namespace std::string_literals;
  const std::string good = EncodeRunSpec(SomeRun());
  EXPECT_THAT(DecodeRunSpec(good.substr(0, good.size() - 1)).status().message(),
              HasSubstr("field 'workdir' says 1 values but has 0"));
  EXPECT_THAT(DecodeSpec("command\0"s).status().message(), HasSubstr("'command' has no count"));
  EXPECT_THAT(DecodeSpec("command\0-1\0"s).status().message(), HasSubstr("bad count '-1'"));
  EXPECT_THAT(DecodeSpec("command\0x\0"s).status().message(), HasSubstr("bad count 'x'"));
  EXPECT_THAT(DecodeSpec("command\0" "99999999999\0"s).status().message(), HasSubstr("bad count"));
  EXPECT_THAT(DecodeSpec("\0" "1\0x\0"s).status().message(), HasSubstr("has no name"));
  EXPECT_THAT(DecodeSpec("a\0" "1\0x\0a\0" "1\0y\0"s).status().message(),
              HasSubstr("'a' appears twice"));
  EXPECT_THAT(DecodeRunSpec(EncodeSpec({{"id", {"12x"}}})).status().message(),
              HasSubstr("id: '12x' is not a number"));
  EXPECT_THAT(DecodeRunSpec(EncodeSpec({{"id", {"1", "2"}}})).status().message(),
              HasSubstr("id: expected one value"));
  EXPECT_THAT(DecodeRunSpec(EncodeSpec({{"id", {"1"}}})).status().message(),
              HasSubstr("a run needs data_dir, id, attempt and command"));
  EXPECT_THAT(DecodeCheckSpec(EncodeSpec({{"user", {"x"}}})).status().message(),
              HasSubstr("a check needs a command"));
  EXPECT_THAT(DecodeReadSpec(EncodeSpec({{"path", {"/x"}}, {"max", {"0"}}})).status().message(),
              HasSubstr("a read needs a path and a max"));
  EXPECT_THAT(DecodeSpec(std::string(kMaxSpecBytes + 1, 'x')).status().message(),
              HasSubstr("over the limit"));
}

TEST(SupervisorSpecTest, AValueIsCutAtANulAsExecWouldCutIt) {
  RunSpec s = SomeRun();
  s.command = {"echo", std::string("a\0b", 3)};
  Result<RunSpec> out = DecodeRunSpec(EncodeRunSpec(s));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->command, (std::vector<std::string>{"echo", "a"}));
}

}  // namespace
}  // namespace squeeze
