// A doubly linked list threaded through its elements, so queues can link and
// unlink objects (posted receives, unexpected messages) in O(1) without
// allocating. Elements embed a ListHook and are not owned by the list.
#pragma once

#include <cstddef>

namespace railyard {

struct ListHook {
  ListHook* prev = nullptr;
  ListHook* next = nullptr;
  void* owner = nullptr;
  [[nodiscard]] bool linked() const noexcept { return owner != nullptr; }
};

// T must outlive its membership. `Hook` names the T member used.
template <typename T, ListHook T::*Hook>
class IntrusiveList {
 public:
  IntrusiveList() = default;
  IntrusiveList(const IntrusiveList&) = delete;
  IntrusiveList& operator=(const IntrusiveList&) = delete;
  IntrusiveList(IntrusiveList&&) = delete;
  IntrusiveList& operator=(IntrusiveList&&) = delete;
  ~IntrusiveList() { clear(); }

  [[nodiscard]] bool empty() const noexcept { return head_ == nullptr; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  void push_back(T& item) noexcept {
    ListHook& hook = item.*Hook;
    hook.owner = &item;
    hook.prev = tail_;
    hook.next = nullptr;
    if (tail_ != nullptr) {
      tail_->next = &hook;
    } else {
      head_ = &hook;
    }
    tail_ = &hook;
    ++size_;
  }

  void erase(T& item) noexcept {
    ListHook& hook = item.*Hook;
    if (!hook.linked()) {
      return;
    }
    (hook.prev != nullptr ? hook.prev->next : head_) = hook.next;
    (hook.next != nullptr ? hook.next->prev : tail_) = hook.prev;
    hook = ListHook{};
    --size_;
  }

  [[nodiscard]] T* front() const noexcept { return head_ == nullptr ? nullptr : owner(head_); }

  // The first element for which pred(element) holds, or nullptr.
  template <typename Pred>
  [[nodiscard]] T* find_if(Pred pred) const {
    for (ListHook* it = head_; it != nullptr; it = it->next) {
      if (T* item = owner(it); pred(*item)) {
        return item;
      }
    }
    return nullptr;
  }

  // Calls fn(element) for each element; fn may not modify the list.
  template <typename Fn>
  void for_each(Fn fn) const {
    for (ListHook* it = head_; it != nullptr; it = it->next) {
      fn(*owner(it));
    }
  }

  void clear() noexcept {
    while (head_ != nullptr) {
      ListHook* hook = head_;
      head_ = hook->next;
      *hook = ListHook{};
    }
    tail_ = nullptr;
    size_ = 0;
  }

 private:
  static T* owner(ListHook* hook) noexcept { return static_cast<T*>(hook->owner); }

  ListHook* head_ = nullptr;
  ListHook* tail_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace railyard
