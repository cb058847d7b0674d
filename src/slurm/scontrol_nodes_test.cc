#include <gtest/gtest.h>

#include "slurm/recordings_for_test.h"
#include "slurm/slurm_output.h"

namespace squeeze {
namespace {

TEST(ScontrolNodesTest, RecordedNodes) {
  Result<std::vector<SlurmNode>> r = ParseScontrolNodes(Recording("scontrol-nodes-east.txt"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].name, "east-n0");
  EXPECT_EQ((*r)[0].state, "mixed");
  EXPECT_EQ((*r)[0].gpus, 4);
  EXPECT_EQ((*r)[0].cpus, 16);
  EXPECT_EQ((*r)[0].partitions, (std::vector<std::string>{"low", "high"}));
}

TEST(ScontrolNodesTest, OneLinerWithModelsAndFlags) {
  Result<std::vector<SlurmNode>> r = ParseScontrolNodes(
      "NodeName=a CPUTot=8 Gres=gpu:a100:4(S:0) GresUsed=gpu:a100:1(IDX:2) State=IDLE+DRAIN "
      "Reason=nvlink errors [root@2026-11-29T09:13:01]\n"
      "NodeName=b CPUTot=8 Gres=(null) State=DOWN\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].gpu_model, "a100");
  EXPECT_EQ((*r)[0].gpus_used, 1);
  EXPECT_FALSE((*r)[0].usable);
  EXPECT_EQ((*r)[0].reason, "nvlink errors [root@2026-11-29T09:13:01]");
  EXPECT_EQ((*r)[1].gpus, 0);
}

TEST(ScontrolNodesTest, Errors) {
  ExpectErrorWith(ParseScontrolNodes("").status(), {"no NodeName= records"});
  ExpectErrorWith(ParseScontrolNodes("NodeName=a Gres=gpu:4\n").status(),
                  {"line 1", "node a", "State is missing"});
  ExpectErrorWith(ParseScontrolNodes("NodeName=a State=IDLE CPUTot=many\n").status(),
                  {"node a", "CPUTot 'many'"});
  ExpectErrorWith(
      ParseScontrolNodes("NodeName=a State=IDLE\nNodeName=b State=IDLE Gres=gpu:x\n").status(),
      {"line 2", "node b", "Gres"});
}

}  // namespace
}  // namespace squeeze
