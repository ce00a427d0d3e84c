// A text module's properties under RapidCheck (rc::check), built by `make`.
#include <rapidcheck.h>

#include <algorithm>
#include <cctype>
#include <string>

static std::string rle(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t j = i;
    while (j < s.size() && s[j] == s[i]) j++;
    out += std::to_string(j - i) + s[i];
    i = j;
  }
  return out;
}

static int clampPercent(int x) { return x > 100 ? 100 : x; }

static std::string upper(std::string s) {
  for (auto &c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

int main() {
  bool ok = true;
  ok &= rc::check("rle output is never longer than twice the input",
                  [](const std::string &s) { RC_ASSERT(rle(s).size() <= 2 * s.size()); });
  ok &= rc::check("clampPercent stays within 0..100", [](int x) {
    int c = clampPercent(x);
    RC_ASSERT(c >= 0);
    RC_ASSERT(c <= 100);
  });
  ok &= rc::check("upper keeps the length", [](const std::string &s) {
    RC_ASSERT(upper(s).size() == s.size());
  });
  ok &= rc::check("upper twice is upper once", [](const std::string &s) {
    RC_ASSERT(upper(upper(s)) == upper(s));
  });
  ok &= rc::check("reversing twice changes nothing", [](std::string s) {
    std::string r = s;
    std::reverse(r.begin(), r.end());
    RC_ASSERT(r == s);
  });
  return ok ? 0 : 1;
}
