// Copyright 2026 Example
#include <vector>
#include "queue.h"

void Queue::push(int v){ items_.push_back(v); }
int Queue::pop() {
  int v = items_.front(); items_.erase(items_.begin());
  return v;
}
