#include "exec/run_tracking.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "exec/run_files.h"

namespace squeeze {
namespace {

constexpr int64_t kCpuPeriodUs = 100000;

std::string Errno() { return std::strerror(errno); }

// Writes `text` to a kernel file (cgroup.procs, memory.max, ...); -1 with errno on failure.
int WriteSmall(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const ssize_t n = write(fd, text.data(), text.size());
  const int saved = errno;
  close(fd);
  errno = saved;
  return n == static_cast<ssize_t>(text.size()) ? 0 : -1;
}

std::string ReadSmall(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The cgroup v2 mount point, from /proc/self/mountinfo; empty when there is none.
std::string CgroupMount() {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, dev, root, mount;
    if (fields >> id >> parent >> dev >> root >> mount && root == "/") return mount;
  }
  return "";
}

// This process's cgroup v2 path ("0::/PATH" in /proc/self/cgroup); empty when there is none.
std::string OwnCgroup() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  }
  return "";
}

uint64_t Fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

bool HasControllers(const std::string& dir) {
  std::istringstream words(ReadSmall(dir + "/cgroup.controllers"));
  bool cpu = false, memory = false;
  for (std::string w; words >> w;) {
    cpu |= w == "cpu";
    memory |= w == "memory";
  }
  return cpu && memory;
}

// Enables cpu and memory for the children of `own` and of `parent`. A cgroup other than the
// root may not hold processes and hand controllers down ("no internal processes"): when the
// daemon is alone in its cgroup (a systemd unit with Delegate=yes), it moves into a leaf of
// its own, squeeze-daemon, first. Returns why not, or "".
std::string EnableLimits(const std::string& own, const std::string& parent, bool own_is_root) {
  if (!HasControllers(own)) return "the cgroup v2 hierarchy has no cpu and memory controllers here";
  if (WriteSmall(own + "/cgroup.subtree_control", "+cpu +memory") != 0) {
    if (errno != EBUSY || own_is_root) return "cannot enable them in " + own + ": " + Errno();
    std::istringstream procs(ReadSmall(own + "/cgroup.procs"));
    std::vector<std::string> pids{std::istream_iterator<std::string>(procs), {}};
    if (pids != std::vector<std::string>{std::to_string(getpid())}) {
      return "other processes share the daemon's cgroup " + own +
             " (run it as a systemd service with Delegate=yes)";
    }
    const std::string leaf = own + "/squeeze-daemon";
    mkdir(leaf.c_str(), 0755);
    if (WriteSmall(leaf + "/cgroup.procs", std::to_string(getpid())) != 0 ||
        WriteSmall(own + "/cgroup.subtree_control", "+cpu +memory") != 0) {
      return "cannot enable them in " + own + ": " + Errno();
    }
  }
  if (WriteSmall(parent + "/cgroup.subtree_control", "+cpu +memory") != 0) {
    return "cannot enable them in " + parent + ": " + Errno();
  }
  return "";
}

// The run cgroups an earlier daemon's runs left empty (a supervisor killed before it removed
// its run's): a live run's is never empty, but for the moment between its making and its
// job joining it, and a job that finds it gone is still tracked by its supervisor.
void RemoveEmptyRunCgroups(const std::string& parent) {
  DIR* dir = opendir(parent.c_str());
  if (dir == nullptr) return;
  while (dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    const std::string run = parent + "/" + name;
    if (ReadSmall(run + "/cgroup.procs").empty()) rmdir(run.c_str());
  }
  closedir(dir);
}

TrackingSetup Subreaper(const std::string& why) {
  TrackingSetup s;
  s.description = "each run's processes are tracked through its supervisor (a child subreaper: "
                  "escapees are adopted by it and ended with the run); no cgroup: " + why;
  return s;
}

}  // namespace

Result<TrackingSetup> PrepareTracking(const std::string& want, const std::string& data_dir) {
  if (want != "auto" && want != "cgroup" && want != "subreaper") {
    return Status::Error("--process-tracking: '" + want + "' is not auto, cgroup or subreaper");
  }
  if (want == "subreaper") return Subreaper("--process-tracking subreaper");
  std::string why;
  const std::string mount = CgroupMount(), own_path = OwnCgroup();
  if (geteuid() != 0) {
    why = "the daemon is not root";
  } else if (mount.empty() || own_path.empty()) {
    why = "no cgroup v2 hierarchy is mounted";
  }
  const std::string own = mount + (own_path == "/" ? "" : own_path);
  char hash[17];
  std::snprintf(hash, sizeof(hash), "%016llx", static_cast<unsigned long long>(Fnv1a(data_dir)));
  const std::string parent = own + "/squeeze-" + std::string(hash, 8);
  if (why.empty() && mkdir(parent.c_str(), 0755) != 0 && errno != EEXIST) {
    why = "cannot make " + parent + ": " + Errno();
  } else if (why.empty() && access((parent + "/cgroup.kill").c_str(), F_OK) != 0) {
    why = "the kernel has no cgroup.kill (Linux 5.14 or later)";
    rmdir(parent.c_str());
  }
  if (!why.empty()) {
    if (want == "cgroup") return Status::Error("--process-tracking cgroup: " + why);
    return Subreaper(why);
  }
  RemoveEmptyRunCgroups(parent);
  TrackingSetup s;
  s.cgroup_parent = parent;
  const std::string no_limits = EnableLimits(own, parent, own_path == "/");
  s.limits = no_limits.empty();
  s.description = "each run in a cgroup of its own under " + parent + "; cpu and memory limits " +
                  (s.limits ? "from each job's cpus and memory" : "off: " + no_limits);
  return s;
}

std::string RunCgroupPath(const std::string& parent, JobId id, int attempt) {
  return parent + "/" + std::to_string(id) + "." + std::to_string(attempt);
}

Status MakeRunCgroup(const std::string& path, bool limits, int64_t cpu_milli,
                     int64_t memory_bytes) {
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::Error("cannot make the cgroup " + path + ": " + Errno());
  }
  if (!limits) return Status::Ok();
  if (cpu_milli > 0 &&
      WriteSmall(path + "/cpu.max",
                 std::to_string(cpu_milli * kCpuPeriodUs / 1000) + " " + std::to_string(kCpuPeriodUs)) != 0) {
    return Status::Error("cannot write " + path + "/cpu.max: " + Errno());
  }
  if (memory_bytes > 0 && WriteSmall(path + "/memory.max", std::to_string(memory_bytes)) != 0) {
    return Status::Error("cannot write " + path + "/memory.max: " + Errno());
  }
  return Status::Ok();
}

int JoinCgroup(const std::string& path) { return WriteSmall(path + "/cgroup.procs", "0"); }

void RemoveRunCgroup(const std::string& path) {
  if (!path.empty()) rmdir(path.c_str());
}

std::vector<std::pair<pid_t, pid_t>> ProcessParents() {
  std::vector<std::pair<pid_t, pid_t>> out;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return out;
  while (dirent* e = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    const std::string stat = ReadSmall("/proc/" + std::string(e->d_name) + "/stat");
    const size_t paren = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (paren == std::string::npos) continue;
    std::istringstream fields(stat.substr(paren + 1));
    char state = 0;
    long ppid = 0;
    if (fields >> state >> ppid && state != 'Z' && state != 'X') {
      out.emplace_back(static_cast<pid_t>(pid), static_cast<pid_t>(ppid));
    }
  }
  closedir(proc);
  return out;
}

std::vector<pid_t> DescendantsOf(pid_t root, const std::vector<std::pair<pid_t, pid_t>>& parents) {
  std::multimap<pid_t, pid_t> children;
  for (const auto& [pid, ppid] : parents) children.emplace(ppid, pid);
  std::vector<pid_t> out, todo = {root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (auto [it, end] = children.equal_range(p); it != end; ++it) {
      out.push_back(it->second);
      todo.push_back(it->second);
    }
  }
  return out;
}

std::vector<pid_t> ProcessesOf(const RunProcesses& run) {
  if (!run.cgroup.empty()) {
    std::istringstream procs(ReadSmall(run.cgroup + "/cgroup.procs"));
    std::vector<pid_t> out;
    for (pid_t pid; procs >> pid;) out.push_back(pid);
    return out;
  }
  if (run.supervisor <= 0) return {};
  return DescendantsOf(run.supervisor, ProcessParents());
}

size_t SignalRun(const RunProcesses& run, int sig) {
  const std::vector<pid_t> pids = ProcessesOf(run);
  if (sig == SIGKILL && !run.cgroup.empty() && WriteSmall(run.cgroup + "/cgroup.kill", "1") == 0) {
    return pids.size();
  }
  for (pid_t pid : pids) kill(pid, sig);
  return pids.size();
}

}  // namespace squeeze
