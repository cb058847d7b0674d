// squeeze-supervisor: started by the daemon for one run of one job, and for the checks and
// reads it makes as a job's account; see supervisor.h.
#include "exec/supervisor.h"

int main(int argc, char** argv) { return squeeze::SupervisorMain(argc, argv); }
