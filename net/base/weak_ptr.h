// WeakPtr / WeakPtrFactory: a single-thread weak reference for callbacks that
// may outlive their target (posted tasks, worker-pool replies, callbacks
// that run several user callbacks in a row).
//
// The factory is a member of the target, declared last so it is destroyed
// first; every WeakPtr it handed out then reads null. Not thread-safe:
// create, check and dereference on the owning thread only.

#ifndef NET_BASE_WEAK_PTR_H_
#define NET_BASE_WEAK_PTR_H_

#include <memory>

namespace net {

template <typename T>
class WeakPtr {
 public:
  WeakPtr() = default;
  T* get() const { return alive_ && *alive_ ? ptr_ : nullptr; }
  explicit operator bool() const { return get() != nullptr; }
  T* operator->() const { return get(); }

 private:
  template <typename U>
  friend class WeakPtrFactory;
  WeakPtr(std::shared_ptr<bool> alive, T* ptr)
      : alive_(std::move(alive)), ptr_(ptr) {}
  std::shared_ptr<bool> alive_;
  T* ptr_ = nullptr;
};

template <typename T>
class WeakPtrFactory {
 public:
  explicit WeakPtrFactory(T* owner)
      : owner_(owner), alive_(std::make_shared<bool>(true)) {}
  ~WeakPtrFactory() { *alive_ = false; }
  WeakPtrFactory(const WeakPtrFactory&) = delete;
  WeakPtrFactory& operator=(const WeakPtrFactory&) = delete;

  WeakPtr<T> GetWeakPtr() { return WeakPtr<T>(alive_, owner_); }
  // InvalidateWeakPtrs makes every WeakPtr handed out so far read null.
  void InvalidateWeakPtrs() {
    *alive_ = false;
    alive_ = std::make_shared<bool>(true);
  }

 private:
  T* const owner_;
  std::shared_ptr<bool> alive_;
};

}  // namespace net

#endif  // NET_BASE_WEAK_PTR_H_
