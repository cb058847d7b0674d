// Lock rules the compiler checks: Clang's thread-safety analysis (-Wthread-safety; the test
// lint.thread_safety compiles every file that includes this header with it, as errors). A
// member written GUARDED_BY(mu_) may only be touched with mu_ held; a function written
// REQUIRES(mu_) only be called with it held, EXCLUDES(mu_) only without. The macros are empty
// for other compilers.
//
// libstdc++'s std::mutex carries no such attributes, so code under these rules locks a Mutex
// (below) with a MutexLock; a condition variable waits with std::condition_variable_any on the
// MutexLock.
#ifndef SQUEEZE_CORE_THREAD_ANNOTATIONS_H_
#define SQUEEZE_CORE_THREAD_ANNOTATIONS_H_

#include <mutex>

#if defined(__clang__)
#define SQZ_THREAD_ATTRIBUTE(x) __attribute__((x))
#else
#define SQZ_THREAD_ATTRIBUTE(x)
#endif

#define CAPABILITY(x) SQZ_THREAD_ATTRIBUTE(capability(x))
#define SCOPED_CAPABILITY SQZ_THREAD_ATTRIBUTE(scoped_lockable)
#define GUARDED_BY(x) SQZ_THREAD_ATTRIBUTE(guarded_by(x))
#define PT_GUARDED_BY(x) SQZ_THREAD_ATTRIBUTE(pt_guarded_by(x))
#define ACQUIRED_BEFORE(...) SQZ_THREAD_ATTRIBUTE(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) SQZ_THREAD_ATTRIBUTE(acquired_after(__VA_ARGS__))
#define REQUIRES(...) SQZ_THREAD_ATTRIBUTE(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) SQZ_THREAD_ATTRIBUTE(acquire_capability(__VA_ARGS__))
#define RELEASE(...) SQZ_THREAD_ATTRIBUTE(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) SQZ_THREAD_ATTRIBUTE(try_acquire_capability(__VA_ARGS__))
#define EXCLUDES(...) SQZ_THREAD_ATTRIBUTE(locks_excluded(__VA_ARGS__))
#define RETURN_CAPABILITY(x) SQZ_THREAD_ATTRIBUTE(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS SQZ_THREAD_ATTRIBUTE(no_thread_safety_analysis)

namespace squeeze {

// A std::mutex the analysis knows as a capability.
class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }

 private:
  std::mutex mu_;
};

// Holds a Mutex for its scope; Unlock and Lock let go of it and take it again within it. Also
// what std::condition_variable_any waits on (lock and unlock, as BasicLockable).
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : mu_(mu) { mu_.Lock(); }
  ~MutexLock() RELEASE() {
    if (held_) mu_.Unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;
  void Unlock() RELEASE() {
    mu_.Unlock();
    held_ = false;
  }
  void Lock() ACQUIRE() {
    mu_.Lock();
    held_ = true;
  }
  // For std::condition_variable_any, which unlocks and locks again while it waits.
  void unlock() RELEASE() { Unlock(); }
  void lock() ACQUIRE() { Lock(); }

 private:
  Mutex& mu_;
  bool held_ = true;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_THREAD_ANNOTATIONS_H_
