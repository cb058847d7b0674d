#include "inventory/inventory_report.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

namespace squeeze {
namespace {

// "NVIDIA A100-SXM4-80GB" -> "nvidia-a100-sxm4-80gb".
std::string PoolName(const std::string& model) {
  std::string out;
  for (char c : model) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "gpu" : out;
}

std::string YamlQuoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::vector<GpuRecord> DropRepeatedGpus(std::vector<GpuRecord> records, int* dropped) {
  std::set<std::pair<std::string, int>> seen;
  std::vector<GpuRecord> out;
  *dropped = 0;
  for (GpuRecord& r : records) {
    if (!seen.insert({r.node, r.index}).second) {
      ++*dropped;
      continue;
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<InventoryGroup> GroupInventory(const std::vector<GpuRecord>& records) {
  std::vector<InventoryGroup> groups;
  std::vector<std::set<std::string>> nodes;
  std::vector<std::pair<double, int>> util;  // sum, count
  for (const GpuRecord& r : records) {
    size_t g = 0;
    while (g < groups.size() &&
           !(groups[g].model == r.model && groups[g].memory_mib == r.memory_mib))
      ++g;
    if (g == groups.size()) {
      InventoryGroup fresh;
      fresh.model = r.model;
      fresh.memory_mib = r.memory_mib;
      groups.push_back(std::move(fresh));
      nodes.emplace_back();
      util.emplace_back(0.0, 0);
    }
    InventoryGroup& group = groups[g];
    ++group.gpus;
    if (r.allocated) group.allocated = group.allocated.value_or(0) + (*r.allocated ? 1 : 0);
    if (r.utilization) {
      util[g].first += *r.utilization;
      ++util[g].second;
    }
    nodes[g].insert(r.node);
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    groups[g].nodes = static_cast<int>(nodes[g].size());
    if (util[g].second > 0) groups[g].mean_utilization = util[g].first / util[g].second;
  }
  return groups;
}

std::string InventoryTable(const std::vector<InventoryGroup>& groups) {
  size_t width = 5;
  for (const InventoryGroup& g : groups) width = std::max(width, g.model.size());
  char line[512];
  std::snprintf(line, sizeof line, "%-*s  %10s  %5s  %9s  %9s  %5s\n", static_cast<int>(width),
                "model", "memory", "gpus", "allocated", "mean util", "nodes");
  std::string out = line;
  for (const InventoryGroup& g : groups) {
    const std::string memory = g.memory_mib > 0 ? std::to_string(g.memory_mib) + " MiB" : "?";
    const std::string allocated = g.allocated ? std::to_string(*g.allocated) : "-";
    char util[32] = "-";
    if (g.mean_utilization) std::snprintf(util, sizeof util, "%.0f%%", 100 * *g.mean_utilization);
    std::snprintf(line, sizeof line, "%-*s  %10s  %5d  %9s  %9s  %5d\n", static_cast<int>(width),
                  g.model.c_str(), memory.c_str(), g.gpus, allocated.c_str(), util, g.nodes);
    out += line;
  }
  return out;
}

std::string InventoryJson(const std::vector<GpuRecord>& records) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuRecord& r : records) {
    nlohmann::json g = {
        {"node", r.node}, {"index", r.index}, {"model", r.model}, {"memory_mib", r.memory_mib}};
    g["utilization"] = r.utilization ? nlohmann::json(*r.utilization) : nlohmann::json();
    g["memory_used_mib"] =
        r.memory_used_mib ? nlohmann::json(*r.memory_used_mib) : nlohmann::json();
    g["allocated"] = r.allocated ? nlohmann::json(*r.allocated) : nlohmann::json();
    g["source"] = r.source;
    gpus.push_back(std::move(g));
  }
  return nlohmann::json{{"gpus", gpus}}.dump(2) + "\n";
}

Result<std::string> InventoryPoolFile(const std::vector<GpuRecord>& records) {
  if (records.empty()) return Status::Error("no GPUs found: no pool file to write");
  // model -> node -> (gpus, memory), in order of first appearance.
  std::vector<std::string> models;
  std::map<std::string, std::vector<std::pair<std::string, std::pair<int, int64_t>>>> by_model;
  std::map<std::string, std::set<std::string>> models_of_node;
  for (const GpuRecord& r : records) {
    if (r.node.empty()) {
      return Status::Error("GPU " + std::to_string(r.index) + " (" + r.model +
                           ") has no node name; a pool file needs one");
    }
    if (!by_model.count(r.model)) models.push_back(r.model);
    auto& nodes = by_model[r.model];
    auto it =
        std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.first == r.node; });
    if (it == nodes.end()) {
      nodes.push_back({r.node, {0, r.memory_mib}});
      it = nodes.end() - 1;
    }
    ++it->second.first;
    models_of_node[r.node].insert(r.model);
  }
  std::string out =
      "# Written by `squeeze inventory --pool-file`: one owned pool per GPU model.\npools:\n";
  std::set<std::string> pool_names;
  for (const std::string& model : models) {
    std::string pool = PoolName(model);
    for (int n = 2; !pool_names.insert(pool).second; ++n)
      pool = PoolName(model) + "-" + std::to_string(n);
    out += "  - name: " + YamlQuoted(pool) + "\n    kind: owned\n    nodes:\n";
    for (const auto& [node, gm] : by_model[model]) {
      const std::string name = models_of_node[node].size() > 1 ? node + "-" + pool : node;
      out += "      - name: " + YamlQuoted(name) + "\n        gpus: " + std::to_string(gm.first) +
             "\n        gpu_model: " + YamlQuoted(model) +
             "\n        gpu_memory_mib: " + std::to_string(gm.second) + "\n";
    }
  }
  return out;
}

}  // namespace squeeze
