// libFuzzer target: a cluster file as YAML or CSV, or a scenario file (the first byte picks),
// through the readers `squeeze simulate` and `squeeze serve` use (config/).
#include <cstdint>
#include <string_view>

#include "config/cluster_file.h"
#include "config/scenario_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      (void)squeeze::ParseClusterYaml(text, "cluster.yaml");
      break;
    case 1:
      (void)squeeze::ParseClusterCsv(text, "cluster.csv");
      break;
    default:
      (void)squeeze::ParseScenarioYaml(text, "scenario.yaml", "/nonexistent");
      break;
  }
  return 0;
}
