// The supervisor's reading of a run's checkpoint marker (DIR/checkpoints/ID/COMPLETE, a file of
// the job's account, in a folder of that account). The daemon, root, never opens it: each read
// is made by a child process of the supervisor that has become the job's account, opens the
// marker without blocking (a FIFO is no hold), takes only a regular file, reads at most
// kMaxMarkerBytes and is killed when it does not answer within a second (a hung file system
// holds up nobody). What it read is relayed into a file of the supervisor's own,
// DIR/runs/ID.ATTEMPT.marker, which is all the daemon reads. Used by the supervisor only;
// not thread-safe (the supervisor has one thread).
#ifndef SQUEEZE_EXEC_MARKER_RELAY_H_
#define SQUEEZE_EXEC_MARKER_RELAY_H_

#include <optional>
#include <string>

#include "exec/run_files.h"
#include "exec/unix_account.h"

namespace squeeze {

class MarkerRelay {
 public:
  // `owner`: the account to read as (none: the supervisor's own); `log_fd`: where a marker that
  // cannot be taken is noted (once per reason).
  MarkerRelay(std::optional<UnixAccount> owner, std::string checkpoint_dir,
              std::string relay_path, int log_fd);
  // Reads the marker now and, when what it says changed, writes the relay file. Returns the
  // marker's text (empty: none).
  const std::string& Check();

 private:
  // The marker's text, or why it cannot be taken ("" and `why` empty when there is none).
  std::string ReadAsOwner(std::string& why);

  std::optional<UnixAccount> owner_;
  std::string marker_path_;
  std::string relay_path_;
  int log_fd_;
  std::string last_;
  std::string last_problem_;
};

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_MARKER_RELAY_H_
