#include "serve/token_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "serve/access.h"

namespace squeeze {

Result<std::vector<TokenLine>> ReadTokenLines(const std::string& data_dir) {
  // The registry's reader checks the file (and names a broken line) first.
  if (Result<TokenRegistry> checked = TokenRegistry::Load(data_dir); !checked.ok()) {
    return checked.status();
  }
  std::vector<TokenLine> out;
  std::ifstream in(data_dir + "/tokens");
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (text.empty() || text[0] == '#') continue;
    std::istringstream fields(text);
    TokenLine t;
    std::string role;
    fields >> t.token >> t.user >> t.team >> role;
    t.line = n;
    t.admin = role == "admin";
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::vector<TokenLine>> RevokeTokens(const std::string& data_dir,
                                            const std::function<bool(const TokenLine&)>& match) {
  Result<std::vector<TokenLine>> tokens = ReadTokenLines(data_dir);
  if (!tokens.ok()) return tokens.status();
  std::vector<TokenLine> removed;
  bool admin_left = false;
  for (const TokenLine& t : *tokens) {
    if (match(t)) {
      removed.push_back(t);
    } else {
      admin_left = admin_left || t.admin;
    }
  }
  if (removed.empty()) return Status::Error("no token matches");
  if (!admin_left) {
    return Status::Error(
        "that would remove every admin token; add another admin first "
        "(squeeze token add USER TEAM --admin)");
  }
  // The file again, without the removed lines (comments and blank lines kept).
  const std::string path = data_dir + "/tokens";
  std::ifstream in(path);
  std::string text, line;
  for (int n = 1; std::getline(in, line); ++n) {
    bool drop = false;
    for (const TokenLine& t : removed) drop = drop || t.line == n;
    if (!drop) text += line + "\n";
  }
  const std::string tmp = path + ".tmp";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Error("cannot write '" + tmp + "': " + std::strerror(errno));
  const bool ok =
      write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && fsync(fd) == 0;
  close(fd);
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status::Error("cannot write '" + path + "': " + std::strerror(errno));
  }
  return removed;
}

std::string TokenPrefix(const std::string& token) { return token.substr(0, 8) + "..."; }

}  // namespace squeeze
