// libFuzzer target: the trace and sample files `squeeze simulate`, `advise` and `idle-report`
// read (sim/readers/): Philly or job-profile CSV, openb pods and nodes, GPU utilization
// samples, inference load, reclaims. The first byte picks the reader and whether bad rows are
// skipped.
#include <cstdint>
#include <string_view>

#include "sim/readers/gpu_samples_reader.h"
#include "sim/readers/inference_load_reader.h"
#include "sim/readers/openb_reader.h"
#include "sim/readers/reclaim_trace_reader.h"
#include "sim/readers/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  squeeze::ReadOptions options;
  options.skip_bad_rows = (data[0] & 0x80) != 0;
  switch (data[0] % 6) {
    case 0:
      (void)squeeze::ParseTrace(text, "trace.csv", options);
      break;
    case 1:
      (void)squeeze::ParseOpenbPods(text, "pods.csv", options);
      break;
    case 2:
      (void)squeeze::ParseOpenbNodes(text, "nodes.csv");
      break;
    case 3:
      (void)squeeze::ParseGpuSamples(text, "samples.csv");
      break;
    case 4:
      (void)squeeze::ParseInferenceLoad(text, "load.csv");
      break;
    default:
      (void)squeeze::ParseReclaimTrace(text, "reclaims.csv");
      break;
  }
  return 0;
}
