#include "exec/gpu_discovery.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "exec/nvidia_smi_csv.h"
#include "exec/nvml_api.h"
#include "exec/process_priority.h"

namespace squeeze {
namespace {

template <typename T>
bool ParseNumber(std::string_view s, T& out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size();
}

}  // namespace

std::string ShortModelName(std::string_view name) {
  name = TrimCsvField(name);
  for (std::string_view prefix : {"NVIDIA ", "Tesla ", "GeForce "}) {
    if (name.substr(0, prefix.size()) == prefix) name.remove_prefix(prefix.size());
  }
  std::string out(name);
  for (char& c : out) {
    if (c == ' ') c = '-';
  }
  return out;
}

Result<std::vector<GpuDevice>> ParseNvidiaSmiCsv(std::string_view text) {
  std::vector<GpuDevice> out;
  for (const NvidiaSmiCsvLine& l : NvidiaSmiCsvLines(text)) {
    const std::string where = "nvidia-smi output line " + std::to_string(l.line_no);
    const std::vector<std::string_view>& f = l.fields;
    if (f.size() != 4) {
      return Status::Error(where + ": expected 4 fields (index, uuid, name, memory.total), got " +
                           std::to_string(f.size()) + ": '" + std::string(l.text) + "'");
    }
    GpuDevice d;
    if (!ParseNumber(f[0], d.index) || d.index < 0) {
      return Status::Error(where + ": index '" + std::string(f[0]) + "' is not a GPU index");
    }
    if (f[2].empty()) return Status::Error(where + ": the name is empty");
    if (!ParseNumber(f[3], d.memory_mib) || d.memory_mib < 0) {
      return Status::Error(where + ": memory.total '" + std::string(f[3]) +
                           "' is not a number of MiB");
    }
    d.uuid = std::string(f[1]);
    d.name = std::string(f[2]);
    d.model = ShortModelName(d.name);
    out.push_back(std::move(d));
  }
  return out;
}

Result<std::vector<GpuDevice>> VirtualGpus(std::string_view spec) {
  const size_t colon = spec.find(':');
  const std::string_view count = spec.substr(0, colon);
  std::string model = colon == std::string_view::npos ? "virtual" : std::string(spec.substr(colon + 1));
  int n = 0;
  if (!ParseNumber(count, n) || n < 1 || n > 1024) {
    return Status::Error("--virtual-gpus: '" + std::string(spec) +
                         "' is not N or N:MODEL with N from 1 to 1024");
  }
  if (model.empty()) return Status::Error("--virtual-gpus: '" + std::string(spec) + "' names no model");
  std::vector<GpuDevice> out;
  for (int i = 0; i < n; ++i) {
    GpuDevice d;
    d.index = i;
    d.name = "virtual " + model;
    d.model = model;
    d.is_virtual = true;
    out.push_back(std::move(d));
  }
  return out;
}

Result<std::vector<GpuDevice>> DiscoverWithNvml() {
  auto opened = OpenNvml();
  if (!opened.ok()) return opened.status();
  NvmlApi& api = *opened;
  auto fail = [&](const std::string& what, NvmlReturn r) { return api.Fail(what, r); };
  std::vector<GpuDevice> out;
  Status status = Status::Ok();
  unsigned int count = 0;
  if (NvmlReturn r = api.count(&count); r != kNvmlSuccess) status = fail("device count", r);
  for (unsigned int i = 0; status.ok() && i < count; ++i) {
    NvmlDevice dev = nullptr;
    std::array<char, 96> name{}, uuid{};
    NvmlMemory mem{};
    NvmlReturn r = api.handle(i, &dev);
    if (r == kNvmlSuccess) r = api.name(dev, name.data(), name.size());
    if (r == kNvmlSuccess) r = api.uuid(dev, uuid.data(), uuid.size());
    if (r == kNvmlSuccess) r = api.memory(dev, &mem);
    if (r != kNvmlSuccess) {
      status = fail("GPU " + std::to_string(i), r);
      break;
    }
    GpuDevice d;
    d.index = static_cast<int>(i);
    d.name = name.data();
    d.uuid = uuid.data();
    d.model = ShortModelName(d.name);
    d.memory_mib = static_cast<int64_t>(mem.total / (1024 * 1024));
    out.push_back(std::move(d));
  }
  CloseNvml(api);
  if (!status.ok()) return status;
  return out;
}

Result<std::vector<GpuDevice>> DiscoverWithNvidiaSmi(const std::string& binary) {
  int fds[2];
  if (pipe(fds) != 0) return Status::Error(std::string("nvidia-smi: pipe: ") + std::strerror(errno));
  const char* argv[] = {binary.c_str(), "--query-gpu=index,uuid,name,memory.total",
                        "--format=csv,noheader,nounits", nullptr};
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return Status::Error(std::string("nvidia-smi: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {  // only async-signal-safe calls until exec
    ChildPriority();
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execvp(argv[0], const_cast<char* const*>(argv));
    _exit(127);
  }
  close(fds[1]);
  std::string text;
  std::array<char, 4096> buf{};
  for (;;) {
    const ssize_t n = read(fds[0], buf.data(), buf.size());
    if (n > 0) {
      text.append(buf.data(), static_cast<size_t>(n));
      if (text.size() > (1 << 20)) break;  // a GPU list is never this long
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return Status::Error("nvidia-smi: '" + binary + "' " +
                         (code == 127 ? std::string("could not be run")
                                      : "exited with status " + std::to_string(code)));
  }
  return ParseNvidiaSmiCsv(text);
}

Result<GpuInventory> DiscoverGpus(const std::string& virtual_spec, const std::string& nvidia_smi) {
  GpuInventory inv;
  if (!virtual_spec.empty()) {
    auto gpus = VirtualGpus(virtual_spec);
    if (!gpus.ok()) return gpus.status();
    inv.source = "virtual";
    inv.gpus = std::move(*gpus);
    return inv;
  }
  auto nvml = DiscoverWithNvml();
  if (nvml.ok()) {
    inv.source = "nvml";
    inv.gpus = std::move(*nvml);
    return inv;
  }
  inv.notes.push_back(nvml.status().message());
  auto smi = DiscoverWithNvidiaSmi(nvidia_smi);
  if (smi.ok()) {
    inv.source = "nvidia-smi";
    inv.gpus = std::move(*smi);
    return inv;
  }
  inv.notes.push_back(smi.status().message());
  inv.source = "none";
  return inv;
}

}  // namespace squeeze
