// The ziggurat for the standard normal (Marsaglia and Tsang, "The Ziggurat Method for Generating
// Random Variables", 2000): 128 strips of equal area v under f(x) = exp(-x²/2), x ≥ 0. Strip 0 is
// the base rectangle [0, r] × [0, f(r)] with the tail beyond r; strip k ≥ 1 the rectangle
// [0, edge[k]] × [f(edge[k]), f(edge[k + 1])]. A draw picks a strip and a point across its width;
// inside the strip above's width it is accepted at once (ziggurat.h), otherwise it is tested
// against f, or drawn from the tail for the base strip (here).
#include "ziggurat.h"

#include <cmath>

namespace braid::op::detail {
namespace {

constexpr double kTail = 3.442619855899;       // r: where the tail starts
constexpr double kArea = 9.91256303526217e-3;  // v: each strip's area

double density(double x) { return std::exp(-0.5 * x * x); }

Ziggurat make_ziggurat() {
  Ziggurat z{};
  z.edge[0] = kArea / density(kTail);  // the base strip and its tail as one rectangle
  z.edge[1] = kTail;
  for (int k = 1; k < Ziggurat::kStrips - 1; ++k)
    z.edge[k + 1] = std::sqrt(-2 * std::log(density(z.edge[k]) + kArea / z.edge[k]));
  z.edge[Ziggurat::kStrips] = 0;
  for (int k = 0; k <= Ziggurat::kStrips; ++k) z.height[k] = density(z.edge[k]);
  return z;
}

}  // namespace

const Ziggurat kZiggurat = make_ziggurat();

double ziggurat_normal_slow(uint64_t bits) {
  Draws more(bits, Draws::FromState{});  // the words after the first
  for (;;) {
    const int k = static_cast<int>(bits & (Ziggurat::kStrips - 1));
    const double sign = (bits & Ziggurat::kStrips) ? -1.0 : 1.0;
    const double x = static_cast<double>(bits >> 11) * 0x1.0p-53 * kZiggurat.edge[k];
    if (x < kZiggurat.edge[k + 1]) return sign * x;
    if (k == 0) {  // the tail beyond r
      for (;;) {
        const double a = -std::log(more.open_uniform()) / kTail, b = -std::log(more.open_uniform());
        if (2 * b > a * a) return sign * (kTail + a);
      }
    }
    const double y = kZiggurat.height[k] + more.uniform() * (kZiggurat.height[k + 1] - kZiggurat.height[k]);
    if (y < density(x)) return sign * x;
    bits = more.bits();
  }
}

}  // namespace braid::op::detail
