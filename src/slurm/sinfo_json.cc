#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "slurm/json_fields.h"
#include "slurm/slurm_output.h"

namespace squeeze {
namespace {

using slurm_json::Json;

const char kSource[] = "sinfo --json";

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool Has(const std::vector<std::string>& flags, const char* flag) {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

Result<SlurmNode> ReadNode(const Json& item, const std::string& path) {
  if (!item.is_object()) return Status::Error(path + ": " + slurm_json::Show(item) +
                                              " is not an object");
  SlurmNode node;
  std::string state;
  std::string gres;
  std::string gres_used;
  for (Status s : {slurm_json::ReadString(item, path, "name", true, &node.name),
                   slurm_json::ReadString(item, path, "state", true, &state),
                   slurm_json::ReadStrings(item, path, "state_flags", false, &node.flags),
                   slurm_json::ReadString(item, path, "gres", false, &gres),
                   slurm_json::ReadString(item, path, "gres_used", false, &gres_used),
                   slurm_json::ReadInt(item, path, "cpus", false, &node.cpus),
                   slurm_json::ReadStrings(item, path, "partitions", false, &node.partitions),
                   slurm_json::ReadString(item, path, "reason", false, &node.reason)}) {
    if (!s.ok()) return s;
  }
  for (std::string& flag : node.flags) flag = Upper(flag);
  SetNodeState(state, &node);
  Result<std::pair<std::string, int>> total = ParseGresCount(gres);
  if (!total.ok()) return total.status().WithContext(path + ".gres");
  node.gpu_model = total->first;
  node.gpus = total->second;
  Result<std::pair<std::string, int>> used = ParseGresCount(gres_used);
  if (!used.ok()) return used.status().WithContext(path + ".gres_used");
  node.gpus_used = used->second;
  return node;
}

}  // namespace

void SetNodeState(const std::string& state, SlurmNode* node) {
  const size_t plus = state.find('+');
  node->state = Lower(state.substr(0, plus));
  for (size_t begin = plus; begin != std::string::npos;) {
    const size_t next = state.find('+', begin + 1);
    const std::string flag = Upper(state.substr(begin + 1, next - begin - 1));
    if (!flag.empty() && !Has(node->flags, flag.c_str())) node->flags.push_back(flag);
    begin = next;
  }
  node->responding = !Has(node->flags, "NOT_RESPONDING");
  const bool base_ok = node->state == "idle" || node->state == "mixed" ||
                       node->state == "allocated";
  bool flags_ok = true;
  for (const char* bad : {"DRAIN", "DRAINING", "DRAINED", "DOWN", "NOT_RESPONDING", "FAIL",
                          "FAILING", "POWERED_DOWN", "POWERING_DOWN"}) {
    if (Has(node->flags, bad)) flags_ok = false;
  }
  node->usable = base_ok && flags_ok;
}

Result<std::vector<SlurmNode>> ParseSinfoJson(std::string_view text) {
  Result<Json> doc = slurm_json::ParseDocument(text, "nodes");
  if (!doc.ok()) return doc.status().WithContext(kSource);
  std::vector<SlurmNode> nodes;
  const Json& items = (*doc)["nodes"];
  for (size_t i = 0; i < items.size(); ++i) {
    Result<SlurmNode> node = ReadNode(items[i], "nodes[" + std::to_string(i) + "]");
    if (!node.ok()) return node.status().WithContext(kSource);
    nodes.push_back(std::move(*node));
  }
  return nodes;
}

}  // namespace squeeze
