#include "exec/user_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "exec/command_runner.h"
#include "exec/supervisor.h"
#include "exec/unix_account.h"

namespace squeeze {
namespace {

int Refuse(const std::string& why) {
  std::printf("error %s\n", why.c_str());
  return 1;
}

// One message for a file that is not there and one the account may not reach, so that
// nobody learns through squeeze what lies in a folder they cannot search.
std::string NoFile(const ReadSpec& spec) {
  return "no file that " + (spec.user.empty() ? std::string("this account") : "user '" + spec.user + "'") +
         " can read at " + spec.path;
}

}  // namespace

int RunRead(const ReadSpec& spec) {
  if (!spec.user.empty()) {
    Result<UnixAccount> account = AccountNamed(spec.user);
    if (!account.ok()) return Refuse(account.status().message());
    if (Status s = BecomeAccount(*account); !s.ok()) return Refuse(s.message());
  }
  const int fd = open(spec.path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == EACCES || errno == ENOTDIR || errno == ELOOP) {
      return Refuse(NoFile(spec));
    }
    return Refuse(spec.path + ": " + std::strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return Refuse(spec.path + " is not a regular file");
  FileSlice slice;
  slice.size = st.st_size;
  int64_t at = spec.from < 0 ? std::max<int64_t>(0, slice.size - spec.max)
                             : std::min(spec.from, slice.size);
  slice.text.resize(static_cast<size_t>(std::max<int64_t>(0, std::min(slice.size, at + spec.max) - at)));
  size_t got = 0;
  while (got < slice.text.size()) {
    const ssize_t n = pread(fd, slice.text.data() + got, slice.text.size() - got, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
    at += n;
  }
  slice.text.resize(got);
  const std::string out = FormatFileSlice(slice);
  return std::fwrite(out.data(), 1, out.size(), stdout) == out.size() ? 0 : 1;
}

std::string FormatFileSlice(const FileSlice& slice) {
  return "size " + std::to_string(slice.size) + "\n" + slice.text;
}

Result<FileSlice> ParseFileSlice(const std::string& text) {
  if (text.rfind("error ", 0) == 0) {
    std::string why = text.substr(6);
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return Status::Error(why);
  }
  const size_t eol = text.find('\n');
  FileSlice slice;
  if (text.rfind("size ", 0) != 0 || eol == std::string::npos ||
      std::from_chars(text.data() + 5, text.data() + eol, slice.size).ptr != text.data() + eol) {
    return Status::Error("the reader's answer is unreadable");
  }
  slice.text = text.substr(eol + 1);
  return slice;
}

Result<FileSlice> ReadFileAsUser(const std::string& supervisor_path, const ReadSpec& spec,
                                 int timeout_ms) {
  auto out = RunCommandWithInput({supervisor_path, "--read"}, SupervisorEnvironment(),
                                 EncodeReadSpec(spec), timeout_ms);
  if (!out.ok()) return out.status();
  if (out->timed_out) {
    return Status::Error(spec.path + " could not be read within " +
                         std::to_string(timeout_ms / 1000) + " s");
  }
  return ParseFileSlice(out->out);
}

}  // namespace squeeze
