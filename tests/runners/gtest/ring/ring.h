// A fixed-size ring buffer with deliberate bugs for the GoogleTest captures.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <vector>

template <typename T>
class Ring {
 public:
  explicit Ring(std::size_t cap) : buf_(cap), cap_(cap) {}
  void push(const T& v) {
    buf_[head_] = v;
    head_ = (head_ + 1) % cap_;
    if (size_ < cap_) ++size_;
  }
  T pop() {
    if (size_ == 0) throw std::out_of_range("pop from empty ring (capacity 4, head 0)");
    std::size_t tail = (head_ + cap_ - size_) % cap_;
    --size_;
    return buf_[tail];
  }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return cap_ - 1; }   // BUG: off by one
  T newest() const { return buf_[head_]; }            // BUG: should be head_ - 1
 private:
  std::vector<T> buf_;
  std::size_t cap_, head_ = 0, size_ = 0;
};
