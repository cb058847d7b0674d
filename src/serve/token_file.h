// The lines of DIR/tokens (serve/access.h) as `squeeze token list` shows them and `squeeze
// token revoke` removes them. A running daemon reads the file again when it changes, so a
// revoked token stops working within a second or two.
#ifndef SQUEEZE_SERVE_TOKEN_FILE_H_
#define SQUEEZE_SERVE_TOKEN_FILE_H_

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace squeeze {

struct TokenLine {
  int line = 0;  // 1-based, in DIR/tokens
  std::string token;
  std::string user;
  std::string team;
  bool admin = false;
};

// Every token of DIR/tokens, in file order; an error names a broken line.
Result<std::vector<TokenLine>> ReadTokenLines(const std::string& data_dir);

// Removes the tokens `match` picks, rewriting DIR/tokens whole (mode 0600, through a
// temporary file and rename); returns those removed. Refuses to remove every admin token
// (the daemon would have no admin until its next start), and to remove nothing.
Result<std::vector<TokenLine>> RevokeTokens(const std::string& data_dir,
                                            const std::function<bool(const TokenLine&)>& match);

// The first characters of a token, enough to tell tokens apart in a list ("3f9a1c2e...").
std::string TokenPrefix(const std::string& token);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_TOKEN_FILE_H_
