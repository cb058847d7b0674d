#include "serve/socket_owner.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serve/testing/sockets.h"

namespace squeeze {
namespace {

// A listening loopback socket and its port.
int Listen(int& port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 4) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return -1;
  }
  port = ntohs(addr.sin_port);
  return fd;
}

int Connect(int port) { return ::squeeze::testing::ConnectLoopback(port); }

TEST(SocketOwnerTest, TheKernelTellsWhoConnected) {
  int port = 0;
  const int listener = Listen(port);
  ASSERT_GE(listener, 0);
  const int client = Connect(port);
  ASSERT_GE(client, 0);
  const int accepted = accept(listener, nullptr, nullptr);
  ASSERT_GE(accepted, 0);
  EXPECT_EQ(LoopbackPeerOwner(accepted), std::optional<uid_t>(geteuid()));
  // The client's end is no accepted connection of ours, but it is a loopback one: its peer is
  // the listener's accepted socket, owned by us too.
  EXPECT_EQ(LoopbackPeerOwner(client), std::optional<uid_t>(geteuid()));
  EXPECT_EQ(LoopbackPeerOwner(listener), std::nullopt);  // no peer
  EXPECT_EQ(LoopbackPeerOwner(-1), std::nullopt);
  close(accepted);
  close(client);
  close(listener);
}

// As root: a process of another uid connects; the owner is that uid, not ours.
TEST(SocketOwnerTest, AnotherUsersConnectionIsTheirs) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to connect as another uid";
  int port = 0;
  const int listener = Listen(port);
  ASSERT_GE(listener, 0);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const uid_t nobody = 65534;
  const pid_t child = fork();
  if (child == 0) {
    if (setgid(nobody) != 0 || setuid(nobody) != 0) _exit(2);
    const int fd = Connect(port);
    char c = 0;
    (void)!read(ready[0], &c, 1);  // stays connected until the parent looked
    _exit(fd >= 0 ? 0 : 3);
  }
  const int accepted = accept(listener, nullptr, nullptr);
  ASSERT_GE(accepted, 0);
  EXPECT_EQ(LoopbackPeerOwner(accepted), std::optional<uid_t>(nobody));
  (void)!write(ready[1], "x", 1);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  close(accepted);
  close(listener);
  close(ready[0]);
  close(ready[1]);
}

}  // namespace
}  // namespace squeeze
