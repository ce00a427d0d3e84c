// A bounded ring buffer's properties under RapidCheck (rc::check), built by `make`.
#include <rapidcheck.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

struct Ring {
  std::vector<int> items;
  size_t capacity;
  explicit Ring(size_t c) : capacity(c) {}
  void push(int x) {
    if (items.size() == capacity) items.erase(items.begin());
    items.push_back(x);
  }
  int pop() {
    if (items.empty()) throw std::out_of_range("empty");
    int x = items.back();
    items.pop_back();
    return x;
  }
};

int main() {
  bool ok = true;
  ok &= rc::check("size never exceeds capacity", [](const std::vector<int> &xs) {
    Ring r(4);
    for (int x : xs) r.push(x);
    RC_ASSERT(r.items.size() <= 4u);
  });
  ok &= rc::check("pop returns the first element pushed", [](int a, int b) {
    Ring r(4);
    r.push(a);
    r.push(b);
    RC_ASSERT(r.pop() == a);
  });
  ok &= rc::check("a full ring keeps the newest", [](const std::vector<int> &xs) {
    RC_PRE(xs.size() > 4u);
    Ring r(4);
    for (int x : xs) r.push(x);
    RC_ASSERT(r.items.back() == xs.back());
  });
  ok &= rc::check("pop on an empty ring throws length_error", [] {
    Ring r(2);
    RC_ASSERT_THROWS_AS(r.pop(), std::length_error);
  });
  return ok ? 0 : 1;
}
