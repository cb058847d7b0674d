// `squeeze token add USER TEAM [--admin] [--single-user] [--data DIR]`: gives a user an API token
// for `squeeze serve` by adding it to DIR/tokens (serve/access.h). USER is a Unix account of
// this machine: a root daemon runs the token's jobs as it. A daemon that is not root runs
// every job as itself, so a token for anyone else needs --single-user.
#ifndef SQUEEZE_CLI_TOKEN_COMMAND_H_
#define SQUEEZE_CLI_TOKEN_COMMAND_H_

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"

namespace squeeze {

struct TokenAddFlags {
  std::string user;
  std::string team;
  bool admin = false;
  std::string data_dir;  // squeeze serve's data directory
  bool single_user = false;  // the daemon (not root) runs this user's jobs as itself: fine
};

struct TokenRevokeFlags {
  std::string prefix;  // the token, or its first characters
  std::string user;    // or every token of this user
  std::string data_dir;
};

// Adds the token and prints it alone on `out`, and on `err` where it went; 0 on success, 1
// with the reason on `err`.
int RunTokenAdd(const TokenAddFlags& flags, std::ostream& out, std::ostream& err);

// `token list`: the tokens' first characters, users, teams and roles.
int RunTokenList(const std::string& data_dir, std::ostream& out, std::ostream& err);
// `token revoke`: removes one token (by prefix) or a user's; prints what went.
int RunTokenRevoke(const TokenRevokeFlags& flags, std::ostream& out, std::ostream& err);

// The `token` command and its add, list and revoke subcommands.
void RegisterTokenCommand(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_TOKEN_COMMAND_H_
