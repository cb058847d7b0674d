#include "exec/gpu_utilization.h"

#include <charconv>

#include "exec/command_runner.h"
#include "exec/nvidia_smi_csv.h"
#include "exec/nvml_api.h"

namespace squeeze {
namespace {

bool NotAvailable(std::string_view v) { return !v.empty() && v.front() == '['; }

// A number >= 0, or nullopt for "[N/A]"; false when it is neither.
bool ParseReading(std::string_view v, std::optional<double>& out) {
  if (NotAvailable(v)) {
    out.reset();
    return true;
  }
  double d = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size() || d < 0) return false;
  out = d;
  return true;
}

}  // namespace

std::vector<std::string> NvidiaSmiUtilizationArgs() {
  return {"--query-gpu=index,utilization.gpu,memory.used", "--format=csv,noheader,nounits"};
}

Result<std::vector<GpuUtilization>> ParseNvidiaSmiUtilizationCsv(std::string_view text) {
  std::vector<GpuUtilization> out;
  for (const NvidiaSmiCsvLine& l : NvidiaSmiCsvLines(text)) {
    const std::string where = "nvidia-smi output line " + std::to_string(l.line_no);
    const std::vector<std::string_view>& f = l.fields;
    if (f.size() != 3) {
      return Status::Error(where + ": expected 3 fields (index, utilization.gpu, memory.used), got " +
                           std::to_string(f.size()) + ": '" + std::string(l.text) + "'");
    }
    GpuUtilization g;
    auto [ptr, ec] = std::from_chars(f[0].data(), f[0].data() + f[0].size(), g.index);
    if (f[0].empty() || ec != std::errc() || ptr != f[0].data() + f[0].size() || g.index < 0) {
      return Status::Error(where + ": index '" + std::string(f[0]) + "' is not a GPU index");
    }
    std::optional<double> percent;
    if (!ParseReading(f[1], percent) || (percent && *percent > 100)) {
      return Status::Error(where + ": utilization.gpu '" + std::string(f[1]) +
                           "' is not a percentage from 0 to 100");
    }
    if (percent) g.utilization = *percent / 100;
    if (!ParseReading(f[2], g.memory_used_mib)) {
      return Status::Error(where + ": memory.used '" + std::string(f[2]) +
                           "' is not a number of MiB");
    }
    out.push_back(g);
  }
  return out;
}

Result<std::vector<GpuUtilization>> SampleWithNvidiaSmi(const std::string& binary, int timeout_ms) {
  std::vector<std::string> argv = {binary};
  for (std::string& a : NvidiaSmiUtilizationArgs()) argv.push_back(std::move(a));
  auto run = RunCommand(argv, {}, timeout_ms);
  if (!run.ok()) return run.status().WithContext("nvidia-smi");
  if (run->timed_out) {
    return Status::Error("nvidia-smi: '" + binary + "' did not answer within " +
                         std::to_string(timeout_ms) + " ms");
  }
  if (run->exit_code != 0) {
    return Status::Error("nvidia-smi: '" + binary + "' exited with status " +
                         std::to_string(run->exit_code) + ": " + std::string(TrimCsvField(run->err)));
  }
  return ParseNvidiaSmiUtilizationCsv(run->out);
}

Result<std::vector<GpuUtilization>> SampleWithNvml() {
  auto opened = OpenNvml();
  if (!opened.ok()) return opened.status();
  NvmlApi& api = *opened;
  std::vector<GpuUtilization> out;
  Status status = Status::Ok();
  unsigned int count = 0;
  if (NvmlReturn r = api.count(&count); r != kNvmlSuccess) status = api.Fail("device count", r);
  for (unsigned int i = 0; status.ok() && i < count; ++i) {
    NvmlDevice dev = nullptr;
    if (NvmlReturn r = api.handle(i, &dev); r != kNvmlSuccess) {
      status = api.Fail("GPU " + std::to_string(i), r);
      break;
    }
    GpuUtilization g;
    g.index = static_cast<int>(i);
    // A GPU that does not report one (MIG mode) just has no value.
    if (NvmlUtilization u{}; api.utilization(dev, &u) == kNvmlSuccess) g.utilization = u.gpu / 100.0;
    if (NvmlMemory m{}; api.memory(dev, &m) == kNvmlSuccess) {
      g.memory_used_mib = static_cast<double>(m.used) / (1024 * 1024);
    }
    out.push_back(g);
  }
  CloseNvml(api);
  if (!status.ok()) return status;
  return out;
}

Result<std::vector<GpuUtilization>> SampleGpus(const std::string& source,
                                               const std::string& nvidia_smi) {
  if (source == "nvml") return SampleWithNvml();
  if (source == "nvidia-smi") return SampleWithNvidiaSmi(nvidia_smi);
  return Status::Error("GPUs found through '" + source + "' have no utilization to sample");
}

}  // namespace squeeze
