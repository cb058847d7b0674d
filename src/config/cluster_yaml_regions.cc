// The parts of a cluster file for pools beyond this machine: a pool's `slurm` map (backend
// slurm) and the root's `region_links` (what moving a job's data between regions takes).
//
//   pools:
//     - name: east
//       region: us-east
//       backend: slurm
//       slurm: {cluster: east, partition: gpu, conf: /etc/slurm-east/slurm.conf, user: train}
//   region_links:
//     - {from: us-east, to: eu-west, bandwidth_gbps: 10, price_per_gb: 0.02}
#include "config/cluster_yaml_reader.h"

namespace squeeze::cluster_yaml {
namespace {

constexpr std::string_view kSlurmKeys[] = {"cluster", "partition", "conf", "user"};
constexpr std::string_view kLinkKeys[] = {"from", "to", "bandwidth_gbps", "price_per_gb"};

}  // namespace

Status ClusterYamlReader::ReadSlurm(const Fields& f, const std::string& path,
                                    SlurmPoolSpec& out) const {
  const auto it = f.find("slurm");
  if (it == f.end()) return Status::Ok();
  const std::string where = Child(path, "slurm");
  Fields s;
  if (Status st = ReadFields(it->second.value, where, kSlurmKeys, s); !st.ok()) return st;
  for (Status st : {ReadString(s, "cluster", where, out.cluster),
                    ReadString(s, "partition", where, out.partition),
                    ReadString(s, "conf", where, out.conf), ReadString(s, "user", where, out.user)}) {
    if (!st.ok()) return st;
  }
  if (out.conf.empty()) {
    return Error(it->second.At(), where,
                 "missing required key 'conf' (the path of the cluster's slurm.conf)");
  }
  return Status::Ok();
}

Status ClusterYamlReader::ReadRegionLinks(const Fields& f, ClusterSpec& spec) const {
  const auto it = f.find("region_links");
  if (it == f.end()) return Status::Ok();
  const YAML::Node& list = it->second.value;
  if (!list.IsSequence()) {
    return Error(it->second.At(), "region_links", "expected a list of links, got " + TypeName(list));
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = Element("region_links", i);
    Fields l;
    if (Status s = ReadFields(list[i], where, kLinkKeys, l); !s.ok()) return s;
    for (std::string_view key : {"from", "to", "bandwidth_gbps"}) {
      if (!l.count(key)) return Error(list[i], where, "missing required key '" + std::string(key) + "'");
    }
    RegionLink link;
    for (Status s : {ReadString(l, "from", where, link.from), ReadString(l, "to", where, link.to),
                     ReadDouble(l, "bandwidth_gbps", where, link.bandwidth_gbps),
                     ReadDouble(l, "price_per_gb", where, link.price_per_gb)}) {
      if (!s.ok()) return s;
    }
    if (!(link.bandwidth_gbps > 0)) {
      return Error(l.find("bandwidth_gbps")->second.At(), Child(where, "bandwidth_gbps"),
                   "value must be more than 0");
    }
    spec.region_links.push_back(std::move(link));
  }
  return Status::Ok();
}

}  // namespace squeeze::cluster_yaml
