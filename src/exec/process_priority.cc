#include "exec/process_priority.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace squeeze {
namespace {

std::atomic<bool> g_set{false};
std::atomic<int> g_starting{0};

}  // namespace

std::string SetDaemonNice(int nice_value) {
  errno = 0;
  const int starting = getpriority(PRIO_PROCESS, 0);  // this thread's (Linux)
  if (errno != 0) return std::string("nice kept (cannot read it: ") + std::strerror(errno) + ")";
  g_starting = starting;
  g_set = true;
  const std::string children =
      "; the processes it starts run at " + std::to_string(starting);
  if (nice_value == starting) return "nice " + std::to_string(starting) + children;
  if (setpriority(PRIO_PROCESS, 0, nice_value) != 0) {
    return "nice " + std::to_string(starting) + " kept (cannot set " + std::to_string(nice_value) +
           ": " + std::strerror(errno) + ")" + children;
  }
  return "nice " + std::to_string(nice_value) + children;
}

void ChildPriority(int nicer) {
  if (!g_set) {
    if (nicer > 0) (void)!nice(nicer);
    return;
  }
  (void)setpriority(PRIO_PROCESS, 0, std::min(19, g_starting.load() + std::max(0, nicer)));
}

int StartingNice() { return g_starting; }

}  // namespace squeeze
