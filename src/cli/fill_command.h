// `squeeze simulate --protocol fill`: the FGD fill experiment on Alibaba's openb traces.
#ifndef SQUEEZE_CLI_FILL_COMMAND_H_
#define SQUEEZE_CLI_FILL_COMMAND_H_

#include <string>

namespace squeeze {

struct FillFlags {
  std::string trace;       // openb_pod_list_*.csv
  std::string nodes;       // openb_node_list_*.csv
  std::string placements;  // comma-separated node order names
  std::string seeds;       // "42-51" or "42"
  double fill = 1.3;
  std::string json_out;
  std::string svg_out;
  bool quiet = false;
};

// Runs the experiment and prints the table; 0 on success, 1 with a message on stderr.
int RunFillProtocol(const FillFlags& flags);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_FILL_COMMAND_H_
