// The files through which the executor and the supervisor talk, under the data directory DIR:
//   DIR/runs/<id>.<attempt>.run   the supervisor's pid, its start time and the job's pid (= pgid)
//   DIR/runs/<id>.<attempt>.exit  how the job ended, written once, atomically
//   DIR/runs/<id>.<attempt>.marker  the checkpoint marker as the supervisor last read it
//   DIR/logs/<id>.<attempt>.log   the job's stdout and stderr (written by the supervisor)
//   DIR/checkpoints/<id>/         the job's checkpoint folder, kept across attempts; the job
//                                 marks a complete checkpoint by renaming a file to COMPLETE
// Plain functions and data; no state. See docs/checkpoint-protocol.md.
#ifndef SQUEEZE_EXEC_RUN_FILES_H_
#define SQUEEZE_EXEC_RUN_FILES_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

inline constexpr char kCheckpointMarker[] = "COMPLETE";
// The most of a checkpoint marker squeeze reads; a longer one is not taken.
inline constexpr size_t kMaxMarkerBytes = 4096;

struct RunPaths {
  std::string run;             // DIR/runs/<id>.<attempt>.run
  std::string exit;            // DIR/runs/<id>.<attempt>.exit
  std::string marker;          // DIR/runs/<id>.<attempt>.marker
  std::string log;             // DIR/logs/<id>.<attempt>.log
  std::string checkpoint_dir;  // DIR/checkpoints/<id>
};
RunPaths PathsOf(const std::string& data_dir, JobId id, int attempt);

// Creates DIR/runs (mode 0700: the daemon's), DIR/logs and DIR/checkpoints (0711: passed
// through, not listed) and DIR/checkpoints/<id> when missing.
Status MakeRunDirs(const std::string& data_dir, JobId id);

// Writes `text` to `path` through path.tmp, fsync and rename, so a reader sees all or nothing.
// `mode` (less the umask) is the file's from its creation: a file that holds a job's
// environment (a Slurm batch script) is never readable by others, not even for a moment.
Status WriteFileAtomically(const std::string& path, const std::string& text, mode_t mode = 0644);
// The whole file, or nullopt when it cannot be read (missing, say).
std::optional<std::string> ReadFileIfPresent(const std::string& path);

// A stretch of a file in the data directory that a job's account may write (a run's log, a
// Slurm run's exit record and checkpoint marker), read by a daemon that may be root: opened
// without following a symlink at its end and without blocking (a FIFO is no hold), only a
// regular file owned by one of `uids`, at most `max` bytes. `from` < 0: the last `max` bytes;
// else at most `max` bytes from `from`. The error says why not ("it is a symbolic link", "it
// is not a regular file", "it is owned by uid 0, ...", strerror).
struct FileSlice {
  int64_t size = 0;  // the whole file's
  std::string text;
};
Result<FileSlice> ReadOwnedFileSlice(const std::string& path, const std::vector<uid_t>& uids,
                                     int64_t from, int64_t max);
// A small file of that kind whole: an error too when it is over `max` bytes.
Result<std::string> ReadOwnedSmallFile(const std::string& path, const std::vector<uid_t>& uids,
                                       int64_t max);

// The content of `checkpoint_dir`/COMPLETE, a file of the job's account (one of `uids`), read
// as ReadOwnedSmallFile reads (at most 4096 bytes), without its trailing newline; empty when
// absent or not taken. For backends whose runs have no supervisor to relay it (Slurm).
std::string ReadCheckpointMarker(const std::string& checkpoint_dir, const std::vector<uid_t>& uids);
// What a marker holds, as squeeze records it: trailing spaces and line ends cut.
std::string TrimMarker(std::string text);

// A live process is identified by its pid and its start time (field 22 of /proc/<pid>/stat),
// so that a reused pid is not mistaken for it.
std::optional<uint64_t> ProcessStartTime(pid_t pid);
bool ProcessIsAlive(pid_t pid, uint64_t start_time);

struct RunRecord {
  pid_t supervisor_pid = 0;
  uint64_t supervisor_start = 0;
  pid_t job_pid = 0;  // also the job's process group id
  std::string cgroup;  // the run's cgroup folder (run_tracking.h); empty = none
};
std::string FormatRunRecord(const RunRecord& r);
std::optional<RunRecord> ParseRunRecord(const std::string& text);

// How a job ended: an exit code, or the signal that killed it. `error` is set when the
// supervisor could not run the job at all (exit code 127, "cannot run 'x': No such file...")
// or lost it.
struct ExitStatus {
  bool signaled = false;
  int code = 0;  // the exit code, or the signal number when signaled
  std::string error;
  // The backend lost the run (its node failed, Slurm requeued or forgot it): not the job's
  // failure; `error` says what happened. Never written to an .exit file.
  bool lost = false;
  // Which step of starting the job failed, when the supervisor could not run it: "account",
  // "become", "workdir", "output", "error", "redirect" or "exec"; empty otherwise. What every
  // user may be told, where `error` names the job's paths and command.
  std::string step;
  bool Succeeded() const { return !signaled && code == 0; }
  bool operator==(const ExitStatus&) const = default;
};
// "exit 0\n", "signal 9\n", + "error ...\n" + "step ...\n"
std::string FormatExitStatus(const ExitStatus& e);
std::optional<ExitStatus> ParseExitStatus(const std::string& text);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_RUN_FILES_H_
