// libFuzzer target: what Slurm's tools print, as squeeze's Slurm executor and `squeeze
// inventory` read it (slurm/slurm_output.h): squeue --json, sinfo --json, scontrol show job
// and node, the jobcomp file, GRES strings, host lists, scontrol show topology. The first byte
// picks the parser.
#include <cstdint>
#include <string_view>

#include "slurm/host_list.h"
#include "slurm/scontrol_topology.h"
#include "slurm/slurm_output.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 9) {
    case 0:
      (void)squeeze::ParseSqueueJson(text);
      break;
    case 1:
      (void)squeeze::ParseSinfoJson(text);
      break;
    case 2:
      (void)squeeze::ParseScontrolJob(text);
      break;
    case 3:
      (void)squeeze::ParseScontrolNodes(text);
      break;
    case 4:
      (void)squeeze::ParseJobcomp(text);
      break;
    case 5:
      (void)squeeze::ParseGresIndices(text);
      break;
    case 6:
      (void)squeeze::ExpandHostList(text);
      break;
    case 7:
      (void)squeeze::ParseScontrolTopology(text);
      break;
    default:
      (void)squeeze::ParseGresCount(text);
      break;
  }
  return 0;
}
