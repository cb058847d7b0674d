// squeeze-supervisor: started by the local executor for one run of one job; see supervisor.h.
#include <cstdio>

#include "exec/supervisor.h"

int main(int argc, char** argv) {
  std::optional<squeeze::SupervisorArgs> args = squeeze::ParseSupervisorArgs(argc, argv);
  if (!args) {
    std::fprintf(stderr,
                 "usage: squeeze-supervisor DATA_DIR JOB_ID ATTEMPT WORKDIR -- ARGV...\n"
                 "(started by squeeze serve; not meant to be run by hand)\n");
    return 2;
  }
  return squeeze::RunSupervisor(*args);
}
