#include <cstring>
#include <vector>
struct Ring {
  int* data;
  int size;
  Ring(int n) { data = new int[n]; size = n; }
  void copy(const Ring& other) { memcpy(data, other.data, other.size * sizeof(int)); }
};
int sum(std::vector<int> v) {
  int total;
  for (int i = 0; i < v.size(); i++) total += v[i];
  return total;
}
