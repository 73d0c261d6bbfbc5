// Gradient-check cases of the linalg operators (src/op/linalg).
#include <string>

#include "unit/op/grad_cases.h"

namespace braid::test {
namespace {

// Adds `shift` to the diagonals of input `i`, a stack of n×n matrices (well-conditioned
// triangles and inverses).
std::function<void(std::vector<std::vector<double>>&)> shift_diagonal(size_t i, int64_t n, double shift) {
  return [=](auto& in) {
    for (size_t at = 0; at < in[i].size(); at += static_cast<size_t>(n * n))
      for (int64_t k = 0; k < n; ++k) in[i][at + static_cast<size_t>(k * n + k)] += shift;
  };
}

// Makes input 0, a stack of n×n matrices X, into X X^T + n I (symmetric positive definite).
std::function<void(std::vector<std::vector<double>>&)> positive_definite(int64_t n) {
  return [=](auto& in) {
    auto& m = in[0];
    for (size_t at = 0; at < m.size(); at += static_cast<size_t>(n * n)) {
      std::vector<double> x(m.begin() + static_cast<long>(at), m.begin() + static_cast<long>(at + n * n));
      for (int64_t r = 0; r < n; ++r)
        for (int64_t c = 0; c < n; ++c) {
          double v = r == c ? static_cast<double>(n) : 0.0;
          for (int64_t k = 0; k < n; ++k) v += x[static_cast<size_t>(r * n + k)] * x[static_cast<size_t>(c * n + k)];
          m[at + static_cast<size_t>(r * n + c)] = v;
        }
    }
  };
}

}  // namespace

std::vector<GradCase> linalg_grad_cases() {
  std::vector<GradCase> c;
  c.push_back(
      {"_linalg_gemm", {{"alpha", "0.7"}, {"beta", "-1.3"}}, {Shape({2, 3, 4}), Shape({2, 4, 5}), Shape({2, 3, 5})}});
  c.push_back({"_linalg_gemm",
               {{"transpose_a", "True"}, {"transpose_b", "True"}},
               {Shape({2, 4, 3}), Shape({2, 5, 4}), Shape({2, 3, 5})}});
  // Rows along axis 0: A is 3×4 per batch entry of axis 1.
  c.push_back({"_linalg_gemm", {{"axis", "0"}}, {Shape({3, 2, 4}), Shape({4, 2, 5}), Shape({3, 2, 5})}});
  c.push_back({"_linalg_gemm2", {{"alpha", "2"}}, {Shape({3, 4}), Shape({4, 5})}});
  c.push_back({"_linalg_gemm2", {{"transpose_a", "1"}, {"transpose_b", "0"}}, {Shape({2, 4, 3}), Shape({2, 4, 5})}});
  for (const char* op : {"_linalg_trmm", "_linalg_trsm"}) {
    c.push_back({op, {{"alpha", "1.5"}}, {Shape({2, 3, 3}), Shape({2, 3, 4})}, {}, {}, shift_diagonal(0, 3, 3.0)});
    c.push_back({op,
                 {{"rightside", "True"}, {"lower", "False"}, {"transpose", "True"}, {"alpha", "-0.5"}},
                 {Shape({2, 3, 3}), Shape({2, 4, 3})},
                 {},
                 {},
                 shift_diagonal(0, 3, 3.0)});
  }
  c.push_back({"_linalg_syrk", {{"alpha", "0.5"}}, {Shape({2, 3, 4})}});
  c.push_back({"_linalg_syrk", {{"transpose", "True"}}, {Shape({3, 4})}});
  for (const char* lower : {"True", "False"}) {
    GradCase potrf{"_linalg_potrf", {{"lower", lower}}, {Shape({2, 4, 4})}, {}, {}, positive_definite(4)};
    potrf.symmetric = {0};
    c.push_back(potrf);
    c.push_back({"_linalg_potri", {{"lower", lower}}, {Shape({2, 3, 3})}, {}, {}, shift_diagonal(0, 3, 2.0)});
  }
  c.push_back({"_linalg_gelqf", {}, {Shape({2, 3, 5})}});
  GradCase syevd{"_linalg_syevd", {}, {Shape({2, 4, 4})}};
  syevd.symmetric = {0};
  c.push_back(syevd);
  for (const char* op : {"_linalg_inverse", "_linalg_det", "_linalg_slogdet"})
    c.push_back({op, {}, {Shape({2, 3, 3})}, {}, {}, shift_diagonal(0, 3, 2.5)});
  c.push_back({"_linalg_sumlogdiag", {}, {Shape({2, 3, 3})}, {{0.5, 2.0}}});
  c.push_back({"_linalg_extractdiag", {{"offset", "1"}}, {Shape({2, 4, 4})}});
  c.push_back({"_linalg_makediag", {{"offset", "-2"}}, {Shape({2, 3})}});
  c.push_back({"_linalg_extracttrian", {{"lower", "False"}}, {Shape({2, 3, 3})}});
  c.push_back({"_linalg_extracttrian", {{"offset", "-1"}}, {Shape({4, 4})}});
  c.push_back({"_linalg_maketrian", {{"offset", "1"}}, {Shape({2, 6})}});
  return c;
}

}  // namespace braid::test
