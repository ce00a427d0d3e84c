// Copyright 2026 Example
#ifndef TESTS_RUNNERS_DIAGNOSTICS_CPPLINT_QUEUE_H_
#define TESTS_RUNNERS_DIAGNOSTICS_CPPLINT_QUEUE_H_
#include <vector>
class Queue {
 public:
  void push(int v);
  int pop();
 private:
  std::vector<int> items_;
};
#endif  // TESTS_RUNNERS_DIAGNOSTICS_CPPLINT_QUEUE_H_
