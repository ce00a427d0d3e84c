#include <cstdlib>
#include <string>
int parse_port(const char* text) {
  char* end;
  long value = strtol(text, &end, 10);
  if (value > 65535) return -1;
  std::string copy = std::string(text);
  return (int)value;
}
void leak(int n) {
  int* buf = (int*)malloc(n * sizeof(int));
  if (n > 10) return;
  free(buf);
}
