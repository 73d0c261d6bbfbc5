// Sums a 2x3 matrix of ones times a 3x4 one through the installed Braid: prints 24.
#include <cstdio>

#include "braid/ndarray/creation.h"
#include "braid/ndarray/matrix.h"
#include "braid/ndarray/reduce.h"

int main() {
  using namespace braid;
  NDArray product = nd::dot(nd::ones(Shape({2, 3})), nd::ones(Shape({3, 4})));
  std::printf("%g\n", static_cast<double>(nd::sum(product).scalar<float>()));
  return 0;
}
