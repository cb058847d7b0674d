#include <string>

#include "slurm/job_text.h"
#include "slurm/slurm_output.h"

namespace squeeze {
namespace {

const char kSource[] = "scontrol show nodes";

struct NodeChunk {
  std::string_view text;
  int line = 0;  // where its NodeName= is
};

// The text of each node: from a line starting "NodeName=" to the next one.
std::vector<NodeChunk> SplitNodes(std::string_view text) {
  std::vector<size_t> starts;
  std::vector<NodeChunk> out;
  int line = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    ++line;
    if (text.substr(begin, 9) == "NodeName=") {
      starts.push_back(begin);
      out.push_back({std::string_view(), line});
    }
    begin = end + 1;
  }
  starts.push_back(text.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].text = text.substr(starts[i], starts[i + 1] - starts[i]);
  }
  return out;
}

Result<SlurmNode> ReadNode(const NodeChunk& chunk) {
  const std::string at = std::string(kSource) + " line " + std::to_string(chunk.line);
  SlurmNode node;
  std::string state;
  std::string gres;
  std::string gres_used;
  std::string cpus;
  for (const auto& [key, value] : slurm_text::SplitKeyValues(chunk.text)) {
    if (key == "NodeName") node.name = value;
    if (key == "State") state = value;
    if (key == "Gres") gres = value;
    if (key == "GresUsed") gres_used = value;
    if (key == "CPUTot") cpus = value;
    if (key == "Reason") node.reason = value;
    if (key == "Partitions") {
      for (size_t b = 0; b < value.size();) {
        size_t e = value.find(',', b);
        if (e == std::string::npos) e = value.size();
        if (e > b) node.partitions.push_back(value.substr(b, e - b));
        b = e + 1;
      }
    }
  }
  if (node.name.empty()) return Status::Error(at + ": NodeName is empty");
  const std::string where = at + ": node " + node.name;
  if (state.empty()) return Status::Error(where + ": State is missing");
  SetNodeState(state, &node);
  if (!cpus.empty()) {
    size_t used = 0;
    try {
      node.cpus = std::stoi(cpus, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != cpus.size())
      return Status::Error(where + ": CPUTot '" + cpus + "' is not an integer");
  }
  Result<std::pair<std::string, int>> total = ParseGresCount(gres == "N/A" ? "" : gres);
  if (!total.ok()) return total.status().WithContext(where + ": Gres");
  node.gpu_model = total->first;
  node.gpus = total->second;
  Result<std::pair<std::string, int>> in_use = ParseGresCount(gres_used == "N/A" ? "" : gres_used);
  if (!in_use.ok()) return in_use.status().WithContext(where + ": GresUsed");
  node.gpus_used = in_use->second;
  return node;
}

}  // namespace

Result<std::vector<SlurmNode>> ParseScontrolNodes(std::string_view text) {
  const std::vector<NodeChunk> chunks = SplitNodes(text);
  if (chunks.empty()) {
    std::string shown(text.substr(0, text.find('\n')));
    if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
    return Status::Error(std::string(kSource) + ": no NodeName= records in '" + shown + "'");
  }
  std::vector<SlurmNode> out;
  for (const NodeChunk& chunk : chunks) {
    Result<SlurmNode> node = ReadNode(chunk);
    if (!node.ok()) return node.status();
    out.push_back(std::move(*node));
  }
  return out;
}

}  // namespace squeeze
