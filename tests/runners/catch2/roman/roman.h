// Roman numerals with deliberate bugs for the Catch2 captures.
#pragma once
#include <stdexcept>
#include <string>

inline std::string to_roman(int n) {
  if (n <= 0 || n > 3999) throw std::out_of_range("to_roman: " + std::to_string(n) + " is outside 1..3999");
  const int v[] = {1000, 500, 100, 50, 10, 5, 1};          // BUG: no subtractive forms (900, 400, 90, 40, 9, 4)
  const char* s[] = {"M", "D", "C", "L", "X", "V", "I"};
  std::string out;
  for (int i = 0; i < 7; ++i) while (n >= v[i]) { out += s[i]; n -= v[i]; }
  return out;
}

inline int from_roman(const std::string& r) {
  int total = 0;
  for (char c : r) {
    switch (c) {
      case 'I': total += 1; break;  case 'V': total += 5; break;   case 'X': total += 10; break;
      case 'L': total += 50; break; case 'C': total += 100; break; case 'D': total += 500; break;
      case 'M': total += 1000; break;
      default: break;                                       // BUG: silently ignores bad letters
    }
  }
  return total;
}
