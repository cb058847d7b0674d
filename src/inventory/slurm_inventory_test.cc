#include <gtest/gtest.h>

#include "inventory/inventory_sources.h"
#include "inventory/recordings_for_test.h"

namespace squeeze {
namespace {

TEST(SlurmInventoryTest, SinfoJsonRecordedIdleAndBusy) {
  auto idle = ParseSinfoInventory(InventoryRecording("sinfo-east-live.json"));
  ASSERT_TRUE(idle.ok()) << idle.status().message();
  ASSERT_EQ(idle->size(), 4u);
  EXPECT_EQ((*idle)[0].node, "east-n0");
  EXPECT_EQ((*idle)[0].model, "gpu");  // gpu:4 names no model
  EXPECT_EQ((*idle)[0].allocated, false);
  EXPECT_EQ((*idle)[0].source, "sinfo-json");
  auto busy = ParseSinfoInventory(InventoryRecording("sinfo-east-live-busy.json"));
  ASSERT_TRUE(busy.ok()) << busy.status().message();
  EXPECT_EQ((*busy)[1].allocated, true);
  EXPECT_EQ((*busy)[2].allocated, false);
}

TEST(SlurmInventoryTest, ScontrolRecordedForms) {
  for (const char* name : {"scontrol-nodes-east-live.txt", "scontrol-nodes-east-live-oneliner.txt",
                           "scontrol-nodes-east-live-detail.txt"}) {
    auto r = ParseScontrolNodesInventory(InventoryRecording(name));
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().message();
    ASSERT_EQ(r->size(), 4u) << name;
    EXPECT_EQ((*r)[3].node, "east-n0");
    EXPECT_EQ((*r)[3].index, 3);
    EXPECT_EQ((*r)[3].allocated, false) << name;
  }
  auto busy = ParseScontrolNodesInventory(InventoryRecording("scontrol-nodes-east-live-busy.txt"));
  ASSERT_TRUE(busy.ok()) << busy.status().message();
  EXPECT_EQ((*busy)[1].allocated, true);
  EXPECT_EQ((*busy)[2].allocated, false);
}

TEST(SlurmInventoryTest, ScontrolModelsAndUsed) {
  auto r = ParseScontrolNodesInventory(InventoryRecording("scontrol-nodes-models-oneliner.txt"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 16u);  // the login node has none
  EXPECT_EQ((*r)[0].node, "dgx-a100-01");
  EXPECT_EQ((*r)[0].model, "a100");
  EXPECT_EQ((*r)[5].allocated, true);
  EXPECT_EQ((*r)[6].allocated, false);
  EXPECT_EQ((*r)[8].model, "h100");
  EXPECT_EQ((*r)[15].allocated, false);
}

TEST(SlurmInventoryTest, BrokenInputs) {
  ExpectErrorWith(ParseSinfoInventory("").status(), {"sinfo"});
  ExpectErrorWith(ParseScontrolNodesInventory("").status(), {"no NodeName= records"});
  const std::string good = InventoryRecording("scontrol-nodes-models-oneliner.txt");
  std::string bad_gres = good;
  bad_gres.replace(bad_gres.find("Gres=gpu:h100:8"), 15, "Gres=gpu:h100:x");
  ExpectErrorWith(ParseScontrolNodesInventory(bad_gres).status(),
                  {"line 2", "node dgx-h100-01", "Gres", "'x'"});
  std::string bad_used = good;
  bad_used.replace(bad_used.find("GresUsed=gpu:a100:6"), 19, "GresUsed=gpu:a100:-6");
  ExpectErrorWith(ParseScontrolNodesInventory(bad_used).status(),
                  {"line 1", "node dgx-a100-01", "GresUsed", "'-6'"});
  std::string no_state = good;
  no_state.replace(no_state.find("State=MIXED"), 11, "");
  ExpectErrorWith(ParseScontrolNodesInventory(no_state).status(), {"line 1", "State is missing"});
  const std::string json = InventoryRecording("sinfo-east-live.json");
  ExpectErrorWith(ParseSinfoInventory(json.substr(0, json.size() / 2)).status(), {"sinfo"});
  std::string bad_json = json;
  bad_json.replace(bad_json.find("\"gres\": \"gpu:4\""), 15, "\"gres\": \"gpu:four\"");
  ExpectErrorWith(ParseSinfoInventory(bad_json).status(), {"gres", "'four'"});
}

}  // namespace
}  // namespace squeeze
