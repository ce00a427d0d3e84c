// A tokenizer with deliberate bugs for the GoogleTest captures.
#pragma once
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) { if (!cur.empty()) out.push_back(cur); cur.clear(); }   // BUG: drops empty fields
    else cur += c;
  }
  out.push_back(cur);
  return out;
}

inline double parse_number(const char* s) { return std::atof(s); }

inline const char* unquote(const char* s) {
  assert(s[0] == '"' && "unquote: input must be quoted");   // BUG: aborts on unquoted input
  return s + 1;
}
