// The API's routes: a method and a regular expression that the whole decoded path must match,
// to a handler (its captures in HttpRequest::matches), and a folder of static files mounted
// under a prefix (the dashboard), looked at first for GET. Built before the server starts;
// Route is thread-safe once built.
#ifndef SQUEEZE_SERVE_API_ROUTER_H_
#define SQUEEZE_SERVE_API_ROUTER_H_

#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "serve/http_message.h"

namespace squeeze {

class ApiRouter {
 public:
  using Handler = std::function<HeadReply(HttpRequest&)>;
  void Add(std::string method, const std::string& pattern, Handler handler);
  // GET PREFIX/PATH answers the file DIR/PATH (DIR/PATH/index.html for a folder); a path that
  // climbs out of DIR, or no such file, goes on to the routes.
  void Mount(std::string prefix, std::string dir);
  // The first matching route's reply; 404 {"error": "no such endpoint"} when none matches.
  HeadReply Route(HttpRequest& request) const;

 private:
  std::optional<HttpResponse> StaticFile(const std::string& path) const;

  struct Entry {
    std::string method;
    std::regex pattern;
    Handler handler;
  };
  std::vector<Entry> routes_;
  std::string mount_prefix_;
  std::string mount_dir_;
};

// The Content-Type of a file by its extension ("app.js" -> "text/javascript").
std::string ContentTypeOf(const std::string& path);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_API_ROUTER_H_
