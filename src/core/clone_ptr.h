// ClonePtr<T>: an owning pointer whose copy is a deep copy (T::Clone()), so that a struct that
// holds polymorphic parts (the scheduler's job and node orders) copies as a whole.
#ifndef SQUEEZE_CORE_CLONE_PTR_H_
#define SQUEEZE_CORE_CLONE_PTR_H_

#include <memory>
#include <utility>

namespace squeeze {

template <typename T>
class ClonePtr {
 public:
  ClonePtr() = default;
  ClonePtr(std::unique_ptr<T> p) : p_(std::move(p)) {}  // NOLINT(google-explicit-constructor)
  ClonePtr(const ClonePtr& o) : p_(o.p_ ? o.p_->Clone() : nullptr) {}
  ClonePtr& operator=(const ClonePtr& o) {
    if (this != &o) p_ = o.p_ ? o.p_->Clone() : nullptr;
    return *this;
  }
  ClonePtr(ClonePtr&&) noexcept = default;
  ClonePtr& operator=(ClonePtr&&) noexcept = default;

  T* operator->() const { return p_.get(); }
  T& operator*() const { return *p_; }
  T* get() const { return p_.get(); }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_CLONE_PTR_H_
