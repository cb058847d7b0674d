// squeeze-supervisor: started by the local executor for one run of one job; see supervisor.h.
#include <cstdio>
#include <string>

#include "exec/supervisor.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--check") {
    std::optional<squeeze::RunnableCheck> check = squeeze::ParseCheckArgs(argc, argv);
    if (check) return squeeze::RunCheck(*check);
  } else if (std::optional<squeeze::SupervisorArgs> args = squeeze::ParseSupervisorArgs(argc, argv)) {
    return squeeze::RunSupervisor(*args);
  }
  std::fprintf(stderr,
               "usage: squeeze-supervisor [--output=PATH] [--error=PATH] [--append] DATA_DIR "
               "JOB_ID ATTEMPT WORKDIR USER -- ARGV...\n"
               "       squeeze-supervisor --check USER WORKDIR -- ARGV...\n"
               "(started by squeeze serve; not meant to be run by hand)\n");
  return 2;
}
