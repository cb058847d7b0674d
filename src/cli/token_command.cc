#include "cli/token_command.h"

#include <sys/stat.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <system_error>

#include "exec/unix_account.h"
#include "serve/access.h"

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
  add->add_option("--data", flags->data_dir, "squeeze serve's data directory")->required();
  out.emplace_back(add, [flags] { return RunTokenAdd(*flags, std::cout, std::cerr); });
}

}  // namespace squeeze
