// 2-D vectors with deliberate bugs for the Catch2 captures.
#pragma once
#include <cmath>
#include <stdexcept>
#include <string>

struct Vec2 {
  double x, y;
  Vec2 operator+(Vec2 o) const { return {x + o.x, y + o.y}; }
  Vec2 operator-(Vec2 o) const { return {x - o.x, y + o.y}; }   // BUG: y added
  double length() const { return std::sqrt(x * x + y * y); }
  Vec2 normalized() const {
    double l = length();
    if (l == 0) throw std::domain_error("cannot normalize the zero vector (0, 0)");
    return {x / l, y / l};
  }
  std::string str() const { return "(" + std::to_string(int(x)) + ", " + std::to_string(int(y)) + ")"; }
};
inline bool operator==(Vec2 a, Vec2 b) { return a.x == b.x && a.y == b.y; }
