#include "exec/run_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

namespace squeeze {
namespace {

Status Errno(const std::string& what, const std::string& path) {
  return Status::Error(what + " " + path + ": " + std::strerror(errno));
}

Status MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) return Status::Ok();
  return Errno("cannot create folder", path);
}

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

}  // namespace

RunPaths PathsOf(const std::string& data_dir, JobId id, int attempt) {
  std::string stem = std::to_string(id) + "." + std::to_string(attempt);
  return RunPaths{data_dir + "/runs/" + stem + ".run", data_dir + "/runs/" + stem + ".exit",
                  data_dir + "/runs/" + stem + ".marker", data_dir + "/logs/" + stem + ".log",
                  data_dir + "/checkpoints/" + std::to_string(id)};
}

Status MakeRunDirs(const std::string& data_dir, JobId id) {
  // runs/ is the daemon's alone; logs/ and checkpoints/ may be passed through (each job's log
  // and checkpoint folder are its owner's) but not listed.
  for (const auto& [dir, mode] : std::vector<std::pair<std::string, mode_t>>{
           {data_dir, 0},
           {data_dir + "/runs", 0700},
           {data_dir + "/logs", 0711},
           {data_dir + "/checkpoints", 0711},
           {PathsOf(data_dir, id, 0).checkpoint_dir, 0}}) {
    Status s = MakeDir(dir);
    if (!s.ok()) return s;
    if (mode != 0 && chmod(dir.c_str(), mode) != 0) return Errno("cannot set the mode of", dir);
  }
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, const std::string& text, mode_t mode) {
  std::string tmp = path + ".tmp";
  unlink(tmp.c_str());  // a file left by an earlier try would keep its mode through O_CREAT
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return Errno("cannot create", tmp);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status s = Errno("cannot write", tmp);
      close(fd);
      return s;
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) return Errno("cannot flush", tmp);
  if (rename(tmp.c_str(), path.c_str()) != 0) return Errno("cannot rename to", path);
  int dir = open(DirOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    fsync(dir);
    close(dir);
  }
  return Status::Ok();
}

std::optional<std::string> ReadFileIfPresent(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<FileSlice> ReadOwnedFileSlice(const std::string& path, const std::vector<uid_t>& uids,
                                     int64_t from, int64_t max) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) return Status::Error("it is a symbolic link");
    return Status::Error(std::strerror(errno));
  }
  struct stat st;
  Status refused = Status::Ok();
  if (fstat(fd, &st) != 0) {
    refused = Status::Error(std::strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    refused = Status::Error("it is not a regular file");
  } else if (std::find(uids.begin(), uids.end(), st.st_uid) == uids.end()) {
    refused = Status::Error("it is owned by uid " + std::to_string(st.st_uid) +
                            ", not by the account the job runs as");
  }
  if (!refused.ok()) {
    close(fd);
    return refused;
  }
  FileSlice slice;
  slice.size = st.st_size;
  int64_t at = from < 0 ? std::max<int64_t>(0, slice.size - max) : std::min(from, slice.size);
  const int64_t end = std::min(slice.size, at + max);
  slice.text.resize(static_cast<size_t>(std::max<int64_t>(0, end - at)));
  size_t got = 0;
  while (got < slice.text.size()) {
    const ssize_t n = pread(fd, slice.text.data() + got, slice.text.size() - got, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the file shrank
    got += static_cast<size_t>(n);
    at += n;
  }
  slice.text.resize(got);
  close(fd);
  return slice;
}

Result<std::string> ReadOwnedSmallFile(const std::string& path, const std::vector<uid_t>& uids,
                                       int64_t max) {
  Result<FileSlice> slice = ReadOwnedFileSlice(path, uids, 0, max);
  if (!slice.ok()) return slice.status();
  if (slice->size > max) return Status::Error("it is over " + std::to_string(max) + " bytes");
  return std::move(slice->text);
}

std::optional<uint64_t> ProcessStartTime(pid_t pid) {
  std::optional<std::string> stat = ReadFileIfPresent("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return std::nullopt;
  size_t paren = stat->rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(stat->substr(paren + 1));
  std::string field;
  char state = 0;
  fields >> state;  // field 3
  if (state == 'Z' || state == 'X') return std::nullopt;
  for (int i = 4; i < 22 && fields >> field; ++i) {
  }
  uint64_t start = 0;
  if (!(fields >> start)) return std::nullopt;
  return start;
}

bool ProcessIsAlive(pid_t pid, uint64_t start_time) {
  std::optional<uint64_t> now = ProcessStartTime(pid);
  return now && *now == start_time;
}

std::string FormatRunRecord(const RunRecord& r) {
  return "supervisor " + std::to_string(r.supervisor_pid) + " " +
         std::to_string(r.supervisor_start) + "\njob " + std::to_string(r.job_pid) + "\n" +
         (r.cgroup.empty() ? "" : "cgroup " + r.cgroup + "\n");
}

std::optional<RunRecord> ParseRunRecord(const std::string& text) {
  std::istringstream in(text);
  std::string supervisor, job;
  RunRecord r;
  if (!(in >> supervisor >> r.supervisor_pid >> r.supervisor_start >> job >> r.job_pid) ||
      supervisor != "supervisor" || job != "job" || r.supervisor_pid <= 0 || r.job_pid <= 0) {
    return std::nullopt;
  }
  std::string line;
  std::getline(in, line);  // the rest of the job line
  if (std::getline(in, line) && line.rfind("cgroup ", 0) == 0) r.cgroup = line.substr(7);
  return r;
}

std::string FormatExitStatus(const ExitStatus& e) {
  std::string text = (e.signaled ? "signal " : "exit ") + std::to_string(e.code) + "\n";
  if (!e.error.empty()) text += "error " + e.error + "\n";
  if (!e.step.empty()) text += "step " + e.step + "\n";
  return text;
}

std::optional<ExitStatus> ParseExitStatus(const std::string& text) {
  std::istringstream in(text);
  std::string kind;
  ExitStatus e;
  if (!(in >> kind >> e.code) || (kind != "exit" && kind != "signal")) return std::nullopt;
  e.signaled = kind == "signal";
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    if (line.rfind("error ", 0) == 0) e.error = line.substr(6);
    if (line.rfind("step ", 0) == 0) e.step = line.substr(5);
  }
  return e;
}

std::string TrimMarker(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

std::string ReadCheckpointMarker(const std::string& checkpoint_dir, const std::vector<uid_t>& uids) {
  Result<std::string> text = ReadOwnedSmallFile(checkpoint_dir + "/" + kCheckpointMarker, uids,
                                                static_cast<int64_t>(kMaxMarkerBytes));
  return text.ok() ? TrimMarker(std::move(*text)) : "";
}

}  // namespace squeeze
