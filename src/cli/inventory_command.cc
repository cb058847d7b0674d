#include <unistd.h>

#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "config/file_io.h"
#include "exec/command_runner.h"
#include "inventory/inventory_report.h"
#include "inventory/inventory_sources.h"

namespace squeeze {
namespace {

const char kQuery[] =
    "--query-gpu=index,name,memory.total,memory.used,utilization.gpu,uuid,pci.bus_id";

struct InventoryFlags {
  std::vector<std::string> nvidia_smi_csv;
  std::vector<std::string> nvidia_smi_xml;
  std::vector<std::string> kubectl_json;
  std::vector<std::string> kubectl_describe;
  std::vector<std::string> sinfo_json;
  std::vector<std::string> scontrol_nodes;
  bool json = false;
  bool local = false;
  std::string pool_file;
  std::string nvidia_smi = "nvidia-smi";
};

int Fail(const std::string& message) {
  std::cerr << "squeeze inventory: " << message << "\n";
  return 1;
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

// "recordings/dgx-1.csv" -> "dgx-1": the node an nvidia-smi file stands for.
std::string NodeOfFile(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

using Parser = std::function<Result<std::vector<GpuRecord>>(std::string_view, const std::string&)>;

Status ReadFiles(const std::vector<std::string>& paths, const Parser& parse,
                 std::vector<GpuRecord>* out) {
  for (const std::string& path : paths) {
    Result<std::string> text = ReadWholeFile(path);
    if (!text.ok()) return text.status();
    auto records = parse(*text, path);
    if (!records.ok()) return records.status().WithContext(path);
    out->insert(out->end(), records->begin(), records->end());
  }
  return Status::Ok();
}

Status ReadLocal(const InventoryFlags& f, std::vector<GpuRecord>* out) {
  Result<CommandOutput> run = RunCommand({f.nvidia_smi, kQuery, "--format=csv"}, {}, 30000);
  if (!run.ok() || run->exit_code == 127) {
    return Status::Error(
        "nvidia-smi is not on this machine (no NVIDIA driver?): nothing to "
        "read locally. Give recorded output instead: --nvidia-smi-csv FILE, "
        "--nvidia-smi-xml FILE, --kubectl-json FILE, --kubectl-describe FILE, "
        "--sinfo-json FILE or --scontrol-nodes FILE");
  }
  if (run->exit_code != 0) {
    return Status::Error("nvidia-smi exited with " + std::to_string(run->exit_code) + ": " +
                         run->err + run->out);
  }
  auto records = ParseNvidiaSmiCsv(run->out, HostName());
  if (!records.ok()) return records.status();
  for (GpuRecord& r : *records) r.source = "nvidia-smi";
  out->insert(out->end(), records->begin(), records->end());
  return Status::Ok();
}

Result<std::vector<GpuRecord>> Collect(const InventoryFlags& f) {
  std::vector<GpuRecord> all;
  const auto csv = [](std::string_view t, const std::string& p) {
    return ParseNvidiaSmiCsv(t, NodeOfFile(p));
  };
  const auto xml = [](std::string_view t, const std::string& p) {
    return ParseNvidiaSmiXml(t, NodeOfFile(p));
  };
  const auto kjson = [](std::string_view t, const std::string&) {
    return ParseKubectlNodesJson(t);
  };
  const auto kdesc = [](std::string_view t, const std::string&) {
    return ParseKubectlDescribeNodes(t);
  };
  const auto sinfo = [](std::string_view t, const std::string&) { return ParseSinfoInventory(t); };
  const auto scontrol = [](std::string_view t, const std::string&) {
    return ParseScontrolNodesInventory(t);
  };
  for (Status s :
       {ReadFiles(f.nvidia_smi_csv, csv, &all), ReadFiles(f.nvidia_smi_xml, xml, &all),
        ReadFiles(f.kubectl_json, kjson, &all), ReadFiles(f.kubectl_describe, kdesc, &all),
        ReadFiles(f.sinfo_json, sinfo, &all), ReadFiles(f.scontrol_nodes, scontrol, &all)}) {
    if (!s.ok()) return s;
  }
  const bool any_file = !f.nvidia_smi_csv.empty() || !f.nvidia_smi_xml.empty() ||
                        !f.kubectl_json.empty() || !f.kubectl_describe.empty() ||
                        !f.sinfo_json.empty() || !f.scontrol_nodes.empty();
  if (f.local || !any_file) {
    Status s = ReadLocal(f, &all);
    if (!s.ok()) return s;
  }
  return all;
}

int RunInventory(const InventoryFlags& f) {
  auto collected = Collect(f);
  if (!collected.ok()) return Fail(collected.status().message());
  int dropped = 0;
  std::vector<GpuRecord> gpus = DropRepeatedGpus(std::move(*collected), &dropped);
  if (dropped > 0) {
    std::cerr << "squeeze inventory: " << dropped
              << " GPUs given by more than one source (same node and index) counted once\n";
  }
  if (gpus.empty()) return Fail("no GPUs found in the sources given");
  if (!f.pool_file.empty()) {
    auto yaml = InventoryPoolFile(gpus);
    if (!yaml.ok()) return Fail(yaml.status().message());
    Status s = WriteWholeFile(f.pool_file, *yaml);
    if (!s.ok()) return Fail(s.message());
  }
  std::cout << (f.json ? InventoryJson(gpus) : InventoryTable(GroupInventory(gpus)));
  if (!f.pool_file.empty() && !f.json) std::cout << "pool file: " << f.pool_file << "\n";
  return 0;
}

}  // namespace

CommandRun RegisterInventory(CLI::App& app) {
  auto f = std::make_shared<InventoryFlags>();
  app.add_option("--nvidia-smi-csv", f->nvidia_smi_csv,
                 "Output of `nvidia-smi --query-gpu=index,name,memory.total,memory.used,"
                 "utilization.gpu,uuid,pci.bus_id --format=csv` (or csv,noheader,nounits); the "
                 "file name without extension is the node; repeatable");
  app.add_option("--nvidia-smi-xml", f->nvidia_smi_xml,
                 "Output of `nvidia-smi -q -x`; node as for --nvidia-smi-csv; repeatable");
  app.add_option("--kubectl-json", f->kubectl_json, "Output of `kubectl get nodes -o json`");
  app.add_option("--kubectl-describe", f->kubectl_describe, "Output of `kubectl describe nodes`");
  app.add_option("--sinfo-json", f->sinfo_json, "Output of Slurm's `sinfo --json`");
  app.add_option("--scontrol-nodes", f->scontrol_nodes,
                 "Output of Slurm's `scontrol show nodes` (or -o, -d)");
  app.add_flag("--local", f->local,
               "Also run nvidia-smi on this machine (the default when no file is given)");
  app.add_flag("--json", f->json, "Print every GPU as JSON instead of the summary table");
  app.add_option("--pool-file", f->pool_file,
                 "Write a cluster file (one pool per GPU model) for simulate --cluster and serve");
  app.add_option("--nvidia-smi", f->nvidia_smi, "The nvidia-smi to run locally")
      ->capture_default_str();
  return [f] { return RunInventory(*f); };
}

}  // namespace squeeze
