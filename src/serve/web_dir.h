// Where `squeeze serve` finds the dashboard's built files (web/ built into build/web/), and what
// it answers when they are not there. Pure functions of their arguments, but DefaultWebDir()
// which reads /proc/self/exe; thread-safe.
#ifndef SQUEEZE_SERVE_WEB_DIR_H_
#define SQUEEZE_SERVE_WEB_DIR_H_

#include <string>

namespace squeeze {

// The folder `web` beside the executable at `executable_path` ("/opt/sq/bin/squeeze" ->
// "/opt/sq/bin/web"); "web" when the path has no folder.
std::string WebDirBeside(const std::string& executable_path);

// WebDirBeside(this process's executable): what `--web-dir` defaults to.
std::string DefaultWebDir();

// Whether `dir` holds a built dashboard (an index.html).
bool WebDirBuilt(const std::string& dir);

// The text `/` answers when the dashboard is not built in `dir`: what is missing and how to
// build it.
std::string WebDirMissingText(const std::string& dir);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_WEB_DIR_H_
