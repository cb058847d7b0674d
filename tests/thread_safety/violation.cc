// Not built: lint.thread_safety compiles it to show that the check catches a broken lock
// rule (a guarded member read without its lock, a REQUIRES function called without it).
#include "core/thread_annotations.h"

namespace squeeze {

class Counter {
 public:
  int Read() { return value_; }  // the lock is not held: an error
  void Bump() REQUIRES(mu_) { ++value_; }
  void BumpUnlocked() { Bump(); }  // an error

 private:
  Mutex mu_;
  int value_ GUARDED_BY(mu_) = 0;
};

}  // namespace squeeze
