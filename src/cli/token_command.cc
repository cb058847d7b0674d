#include "cli/token_command.h"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <system_error>

#include "core/safe_text.h"
#include "exec/unix_account.h"
#include "serve/access.h"
#include "serve/daemon.h"
#include "serve/token_file.h"

namespace squeeze {

int RunTokenAdd(const TokenAddFlags& flags, std::ostream& out, std::ostream& err) {
  const auto fail = [&err](const std::string& message) {
    err << "squeeze token add: " << message << "\n";
    return 1;
  };
  std::error_code ec;
  if (flags.data_dir.empty()) return fail("--data: give squeeze serve's data directory");
  if (!std::filesystem::is_directory(flags.data_dir, ec)) {
    return fail("--data: '" + flags.data_dir + "' is not a directory" +
                (ec ? " (" + ec.message() + ")" : ""));
  }
  Result<UnixAccount> account = AccountNamed(flags.user);
  if (!account.ok()) {
    return fail("USER: " + account.status().message() +
                ": a token stands for a Unix account (a root squeeze serve runs its jobs as it)");
  }
  // The daemon of a directory owned by a user other than root is that user's, and runs every
  // job as that user: a token for someone else would run their jobs as the daemon's user.
  struct stat st;
  if (stat(flags.data_dir.c_str(), &st) == 0 && st.st_uid != 0 && st.st_uid != account->uid &&
      !flags.single_user) {
    const Result<UnixAccount> owner = AccountOfUid(st.st_uid);
    const std::string daemon = owner.ok() ? owner->name : "uid " + std::to_string(st.st_uid);
    return fail(flags.data_dir + " is " + daemon + "'s: its squeeze serve (not root) runs every "
                "job as " + daemon + ", so " + flags.user + "'s jobs would run as " + daemon +
                "; give --single-user to add the token all the same, or run squeeze serve as "
                "root to run each job as its owner");
  }
  // A tokens file the daemon could not read would lock everyone out: check it first.
  if (Result<TokenRegistry> existing = TokenRegistry::Load(flags.data_dir); !existing.ok()) {
    return fail(existing.status().message());
  }
  const Result<std::string> token = AddToken(flags.data_dir, flags.user, flags.team, flags.admin);
  if (!token.ok()) return fail(token.status().message());
  out << *token << "\n";
  err << "squeeze token add: added " << (flags.admin ? "an admin" : "a") << " token for user '"
      << flags.user << "' (team '" << flags.team << "') to " << flags.data_dir
      << "/tokens; a running squeeze serve picks it up\n";
  return 0;
}

int RunTokenList(const std::string& data_dir, std::ostream& out, std::ostream& err) {
  Result<std::vector<TokenLine>> tokens = ReadTokenLines(data_dir);
  if (!tokens.ok()) {
    err << "squeeze token list: " << tokens.status().message() << "\n";
    return 1;
  }
  if (tokens->empty()) {
    out << "no tokens in " << data_dir << "/tokens\n";
    return 0;
  }
  out << "TOKEN        USER                 TEAM                 ROLE\n";
  for (const TokenLine& t : *tokens) {
    char row[160];
    std::snprintf(row, sizeof row, "%-12s %-20s %-20s %s\n", TokenPrefix(t.token).c_str(),
                  EscapeControls(t.user).c_str(), EscapeControls(t.team).c_str(),
                  t.admin ? "admin" : "user");
    out << row;
  }
  return 0;
}

int RunTokenRevoke(const TokenRevokeFlags& flags, std::ostream& out, std::ostream& err) {
  const auto fail = [&err](const std::string& message) {
    err << "squeeze token revoke: " << message << "\n";
    return 1;
  };
  if (flags.prefix.empty() == flags.user.empty()) {
    return fail("give a token's first characters (8 or more, as `squeeze token list` shows "
                "them) or --user USER, not both");
  }
  if (!flags.prefix.empty() && flags.prefix.size() < 8) {
    return fail("'" + flags.prefix + "': give at least the 8 first characters of the token");
  }
  std::string prefix = flags.prefix;
  if (prefix.size() > 3 && prefix.ends_with("...")) prefix.resize(prefix.size() - 3);
  Result<std::vector<TokenLine>> removed = RevokeTokens(flags.data_dir, [&](const TokenLine& t) {
    return prefix.empty() ? t.user == flags.user : t.token.starts_with(prefix);
  });
  if (!removed.ok()) return fail(removed.status().message());
  if (!prefix.empty() && removed->size() > 1) {
    // Cannot happen with 8+ random hex characters unless the file was written by hand.
    err << "squeeze token revoke: warning: " << removed->size() << " tokens began with "
        << prefix << "\n";
  }
  for (const TokenLine& t : *removed) {
    out << "revoked " << TokenPrefix(t.token) << " of user '" << t.user << "' (team '" << t.team
        << "'" << (t.admin ? ", admin" : "") << ")\n";
  }
  return 0;
}

void RegisterTokenCommand(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* token = app.add_subcommand("token", "Manage the API tokens of squeeze serve");
  token->require_subcommand(1);
  auto* add = token->add_subcommand("add", "Give USER of TEAM a new API token; prints it");
  auto flags = std::make_shared<TokenAddFlags>();
  add->add_option("USER", flags->user,
                  "The Unix account the token acts as (a root squeeze serve runs its jobs as it)")
      ->required();
  add->add_flag("--single-user", flags->single_user,
                "Add a token for another user to a daemon that is not root, which runs that "
                "user's jobs as its own user");
  add->add_option("TEAM", flags->team, "The user's team")->required();
  add->add_flag("--admin", flags->admin, "An admin token: may act on every job");
  const std::string data_help = "squeeze serve's data directory (default " + DefaultDataDir() +
                                "; $SQUEEZE_DATA, else ~/.squeeze)";
  flags->data_dir = DefaultDataDir();
  add->add_option("--data", flags->data_dir, data_help);
  out.emplace_back(add, [flags] { return RunTokenAdd(*flags, std::cout, std::cerr); });

  auto* list = token->add_subcommand("list", "List the tokens: the first characters of each, "
                                              "its user, team and role");
  auto list_dir = std::make_shared<std::string>(DefaultDataDir());
  list->add_option("--data", *list_dir, data_help);
  out.emplace_back(list, [list_dir] { return RunTokenList(*list_dir, std::cout, std::cerr); });

  auto* revoke = token->add_subcommand(
      "revoke", "Remove a token (by its first characters) or every token of --user; a running "
                "squeeze serve stops taking it within a second or two");
  auto revoke_flags = std::make_shared<TokenRevokeFlags>();
  revoke_flags->data_dir = DefaultDataDir();
  revoke->add_option("TOKEN", revoke_flags->prefix,
                     "The token, or its first 8 characters or more (`squeeze token list`)");
  revoke->add_option("--user", revoke_flags->user, "Every token of this user");
  revoke->add_option("--data", revoke_flags->data_dir, data_help);
  out.emplace_back(revoke,
                   [revoke_flags] { return RunTokenRevoke(*revoke_flags, std::cout, std::cerr); });
}

}  // namespace squeeze
