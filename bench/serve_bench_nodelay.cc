// LD_PRELOAD shim for serve_bench --server-nodelay: sets TCP_NODELAY on every socket the daemon
// accepts, which is what ApiServer would get from httplib::Server::set_tcp_nodelay(true). It lets
// the benchmark measure that one-line change without rebuilding the daemon.
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace {
void NoDelay(int fd) {
  int yes = 1;
  if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
}
}  // namespace

extern "C" {

int accept(int fd, struct sockaddr* addr, socklen_t* len) {
  static int (*real)(int, struct sockaddr*, socklen_t*);
  if (!real)
    real = reinterpret_cast<int (*)(int, sockaddr*, socklen_t*)>(dlsym(RTLD_NEXT, "accept"));
  int s = real(fd, addr, len);
  NoDelay(s);
  return s;
}

int accept4(int fd, struct sockaddr* addr, socklen_t* len, int flags) {
  static int (*real)(int, struct sockaddr*, socklen_t*, int);
  if (!real)
    real = reinterpret_cast<int (*)(int, sockaddr*, socklen_t*, int)>(dlsym(RTLD_NEXT, "accept4"));
  int s = real(fd, addr, len, flags);
  NoDelay(s);
  return s;
}

}  // extern "C"
