#include "cli/token_command.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <system_error>

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
  add->add_option("USER", flags->user, "The user the token acts as")->required();
  add->add_option("TEAM", flags->team, "The user's team")->required();
  add->add_flag("--admin", flags->admin, "An admin token: may act on every job");
  add->add_option("--data", flags->data_dir, "squeeze serve's data directory")->required();
  out.emplace_back(add, [flags] { return RunTokenAdd(*flags, std::cout, std::cerr); });
}

}  // namespace squeeze
