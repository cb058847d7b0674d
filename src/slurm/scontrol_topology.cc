#include "slurm/scontrol_topology.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "slurm/host_list.h"
#include "slurm/job_text.h"

namespace squeeze {
namespace {

const char kTopologySource[] = "scontrol show topology";

std::string LevelName(int level, bool blocks) {
  if (blocks) return "block";
  return level == 0 ? "switch" : "switch" + std::to_string(level + 1);
}

// "BlockName=b1 BlockIndex=0 Nodes=n[1-4]" (topology/block): a block, at level 0.
Result<SlurmSwitch> ParseBlockLine(std::string_view line, const std::string& at) {
  SlurmSwitch block;
  block.block = true;
  for (const auto& [key, value] : slurm_text::SplitKeyValues(line)) {
    if (key == "BlockName") {
      block.name = value;
    } else if (key == "Nodes") {
      auto nodes = ExpandHostList(value);
      if (!nodes.ok()) return nodes.status().WithContext(at + ": Nodes");
      block.nodes = std::move(*nodes);
    }
  }
  if (block.name.empty()) return Status::Error(at + ": BlockName is empty");
  return block;
}

}  // namespace

Result<std::vector<SlurmSwitch>> ParseScontrolTopology(std::string_view text) {
  std::vector<SlurmSwitch> out;
  int line_no = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_no;
    const std::string at = std::string(kTopologySource) + " line " + std::to_string(line_no);
    if (line.substr(0, 10) == "BlockName=") {
      auto block = ParseBlockLine(line, at);
      if (!block.ok()) return block.status();
      out.push_back(std::move(*block));
      continue;
    }
    if (line.substr(0, 11) != "SwitchName=") continue;  // blank, or "No topology information"
    SlurmSwitch sw;
    bool has_level = false;
    for (const auto& [key, value] : slurm_text::SplitKeyValues(line)) {
      if (key == "SwitchName") {
        sw.name = value;
      } else if (key == "Level") {
        auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), sw.level);
        if (ec != std::errc() || ptr != value.data() + value.size() || sw.level < 0 ||
            sw.level > 7) {
          return Status::Error(at + ": Level '" + value + "' is not a level from 0 to 7");
        }
        has_level = true;
      } else if (key == "Nodes") {
        auto nodes = ExpandHostList(value);
        if (!nodes.ok()) return nodes.status().WithContext(at + ": Nodes");
        sw.nodes = std::move(*nodes);
      }
    }
    if (sw.name.empty()) return Status::Error(at + ": SwitchName is empty");
    if (!has_level) return Status::Error(at + ": switch '" + sw.name + "' has no Level");
    out.push_back(std::move(sw));
  }
  for (const SlurmSwitch& sw : out) {
    if (sw.block != out.front().block) {
      return Status::Error(std::string(kTopologySource) + ": both switches and blocks; one "
                           "topology plugin gives one or the other");
    }
  }
  return out;
}

void ApplySlurmTopology(const std::vector<SlurmSwitch>& switches, const std::string& pool,
                        ClusterSpec& spec) {
  if (switches.empty()) return;
  const bool blocks = switches.front().block;
  auto SwitchLevelName = [blocks](int level) { return LevelName(level, blocks); };
  int top = 0;
  for (const SlurmSwitch& sw : switches) top = std::max(top, sw.level);
  for (int l = 0; l <= top; ++l) {
    if (spec.topology.LevelIndex(SwitchLevelName(l)) < 0) {
      spec.topology.levels.push_back({SwitchLevelName(l), 1});
    }
  }
  const size_t levels = spec.topology.levels.size();
  std::vector<int> slurm_level(levels, -1);  // a level of spec.topology -> Slurm's Level
  for (int l = 0; l <= top; ++l) slurm_level[spec.topology.LevelIndex(SwitchLevelName(l))] = l;
  // [node][Slurm level] the switch above it.
  std::map<std::string, std::map<int, std::string>> above;
  for (const SlurmSwitch& sw : switches) {
    for (const std::string& n : sw.nodes) above[n][sw.level] = pool + "/" + sw.name;
  }
  for (NodeSpec& node : spec.nodes) {
    if (node.pool != pool) continue;
    node.domains.assign(levels, "");
    const auto it = above.find(node.name);
    for (size_t l = 0; l < levels; ++l) {
      std::string domain;
      if (it != above.end()) {
        auto sw = it->second.find(slurm_level[l]);
        if (sw != it->second.end()) domain = sw->second;
      }
      // Under no switch of this level: its narrower domain, whole (its own at the leaves).
      if (domain.empty()) domain = l == 0 ? pool + "/" + node.name : node.domains[l - 1] + "^";
      node.domains[l] = std::move(domain);
    }
  }
  // Nodes of other pools that got domains before a level was added: the new levels' domains
  // hold their narrower domain whole.
  for (NodeSpec& node : spec.nodes) {
    while (!node.domains.empty() && node.domains.size() < levels) {
      node.domains.push_back(node.domains.back() + "^");
    }
  }
}

}  // namespace squeeze
