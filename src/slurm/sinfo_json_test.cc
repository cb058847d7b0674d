#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "slurm/recordings_for_test.h"
#include "slurm/slurm_output.h"

namespace squeeze {
namespace {

using nlohmann::json;
using Strings = std::vector<std::string>;

SlurmNode OnlyNode(const std::string& text) {
  Result<std::vector<SlurmNode>> r = ParseSinfoJson(text);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok() || r->size() != 1) {
    ADD_FAILURE() << "expected one node";
    return SlurmNode{};
  }
  return r->front();
}

// The west recording with one change to its node.
std::string WestWith(const char* key, const json& value) {
  json doc = json::parse(Recording("sinfo-west.json"));
  doc["nodes"][0][key] = value;
  return doc.dump();
}

TEST(SinfoJsonTest, BusyNodeOfEast) {
  const SlurmNode n = OnlyNode(Recording("sinfo-east.json"));
  EXPECT_EQ(n.name, "east-n0");
  EXPECT_EQ(n.state, "mixed");
  EXPECT_EQ(n.flags, Strings{});
  EXPECT_TRUE(n.responding);
  EXPECT_TRUE(n.usable);
  EXPECT_EQ(n.gpu_model, "");
  EXPECT_EQ(n.gpus, 4);
  EXPECT_EQ(n.gpus_used, 4);
  EXPECT_EQ(n.cpus, 16);
  EXPECT_EQ(n.partitions, (Strings{"low", "high"}));
  EXPECT_EQ(n.reason, "");
}

TEST(SinfoJsonTest, IdleNodeOfWest) {
  const SlurmNode n = OnlyNode(Recording("sinfo-west.json"));
  EXPECT_EQ(n.name, "west-n0");
  EXPECT_EQ(n.state, "idle");
  EXPECT_TRUE(n.usable);
  EXPECT_EQ(n.gpus, 4);
  EXPECT_EQ(n.gpus_used, 0);
}

TEST(SinfoJsonTest, NodeWhoseSlurmdDiedIsDownAndNotUsable) {
  const SlurmNode n = OnlyNode(Recording("sinfo-west-down.json"));
  EXPECT_EQ(n.name, "west-n0");
  EXPECT_EQ(n.state, "down");
  EXPECT_EQ(n.flags, Strings{"NOT_RESPONDING"});
  EXPECT_FALSE(n.responding);
  EXPECT_FALSE(n.usable);
  EXPECT_EQ(n.reason, "Not responding");
  EXPECT_EQ(n.gpus, 4);
}

TEST(SinfoJsonTest, RightAfterStateDownANodeWithJobsStillShowsMixed) {
  const SlurmNode n = OnlyNode(Recording("sinfo-east-down.json"));
  EXPECT_EQ(n.state, "mixed");
  EXPECT_TRUE(n.usable);
}

TEST(SinfoJsonTest, DrainFlagMakesAnIdleNodeUnusable) {
  const SlurmNode n = OnlyNode(WestWith("state_flags", json::array({"DRAIN"})));
  EXPECT_EQ(n.state, "idle");
  EXPECT_EQ(n.flags, Strings{"DRAIN"});
  EXPECT_TRUE(n.responding);
  EXPECT_FALSE(n.usable);
  EXPECT_FALSE(OnlyNode(WestWith("state", "drained")).usable);
  EXPECT_FALSE(OnlyNode(WestWith("state", "allocated+drain")).usable);
  EXPECT_TRUE(OnlyNode(WestWith("state", "allocated")).usable);
}

TEST(SinfoJsonTest, ModelAndSocketSuffixOfTypedGres) {
  json doc = json::parse(Recording("sinfo-west.json"));
  doc["nodes"][0]["gres"] = "gpu:a100:4(S:0-1)";
  doc["nodes"][0]["gres_used"] = "gpu:a100:1(IDX:0)";
  const SlurmNode n = OnlyNode(doc.dump());
  EXPECT_EQ(n.gpu_model, "a100");
  EXPECT_EQ(n.gpus, 4);
  EXPECT_EQ(n.gpus_used, 1);
}

TEST(SinfoJsonTest, BrokenDocumentsAreErrors) {
  const std::string text = Recording("sinfo-west.json");
  ExpectErrorWith(ParseSinfoJson(text.substr(0, text.size() / 2)).status(),
                  {"sinfo --json: not JSON"});
  ExpectErrorWith(ParseSinfoJson("sinfo: error: unrecognized option").status(),
                  {"sinfo --json: not JSON"});
  ExpectErrorWith(ParseSinfoJson("[1, 2]").status(), {"sinfo --json", "not an object"});
  ExpectErrorWith(ParseSinfoJson(R"({"errors": [], "nodes": {"name": "n"}})").status(),
                  {"sinfo --json: nodes: ", "is not an array"});
  ExpectErrorWith(ParseSinfoJson(R"({"errors": []})").status(), {"sinfo --json: nodes is missing"});
}

TEST(SinfoJsonTest, SlurmsErrorsArrayBecomesTheError) {
  json doc = json::parse(Recording("sinfo-west.json"));
  doc["errors"] = json::array({{{"error", "Unable to contact slurm controller"}, {"errno", 1}}});
  ExpectErrorWith(ParseSinfoJson(doc.dump()).status(),
                  {"sinfo --json", "Unable to contact slurm controller"});
}

TEST(SinfoJsonTest, BrokenFieldsNameThePathAndTheValue) {
  ExpectErrorWith(ParseSinfoJson(WestWith("gres", "gpu:x")).status(),
                  {"sinfo --json: nodes[0].gres: 'gpu:x' is not a GPU GRES"});
  ExpectErrorWith(ParseSinfoJson(WestWith("gres_used", "gpu:a100:1(IDX:0")).status(),
                  {"nodes[0].gres_used", "unclosed"});
  ExpectErrorWith(ParseSinfoJson(WestWith("name", nullptr)).status(),
                  {"sinfo --json: nodes[0].name is missing"});
  ExpectErrorWith(ParseSinfoJson(WestWith("name", 7)).status(),
                  {"nodes[0].name: '7' is not a string"});
  ExpectErrorWith(ParseSinfoJson(WestWith("cpus", "16")).status(),
                  {"nodes[0].cpus: '16' is not an integer"});
  ExpectErrorWith(ParseSinfoJson(WestWith("state_flags", "DRAIN")).status(),
                  {"nodes[0].state_flags: 'DRAIN' is not an array"});
  ExpectErrorWith(ParseSinfoJson(WestWith("partitions", json::array({"low", 3}))).status(),
                  {"nodes[0].partitions[1]: '3' is not a string"});
}

}  // namespace
}  // namespace squeeze
