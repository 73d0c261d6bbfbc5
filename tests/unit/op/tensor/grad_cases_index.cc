// Gradient-check cases of the reduction, indexing and ordering operators.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "unit/op/grad_cases.h"

namespace braid::test {
namespace {

// Replaces input `i` by distinct values spaced 2/n apart in the original order, so that max,
// min, sort and topk never meet a tie within the finite-difference step.
std::function<void(std::vector<std::vector<double>>&)> distinct(size_t i = 0) {
  return [i](auto& in) {
    auto& v = in[i];
    std::vector<size_t> order(v.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    const double step = 2.0 / static_cast<double>(v.size());
    for (size_t r = 0; r < order.size(); ++r) v[order[r]] = -1.0 + step * static_cast<double>(r);
  };
}

// Sets input 1 to integer indices cycling through `values` (out-of-range ones test the modes).
std::function<void(std::vector<std::vector<double>>&)> indices(std::vector<double> values, bool distinct_data = false) {
  return [values, distinct_data](auto& in) {
    for (size_t j = 0; j < in[1].size(); ++j) in[1][j] = values[j % values.size()];
    if (distinct_data) distinct(0)(in);
  };
}

}  // namespace

std::vector<GradCase> index_grad_cases() {
  std::vector<GradCase> c;
  const Shape s3({2, 3, 4});
  // Axis variants shared by the smooth reductions.
  const std::vector<op::AttrMap> axis_variants = {
      {},
      {{"axis", "1"}},
      {{"axis", "(0, 2)"}, {"keepdims", "True"}},
      {{"axis", "-1"}, {"exclude", "True"}},
  };
  for (const char* op : {"sum", "mean", "prod", "nansum", "nanprod"})
    for (const auto& attrs : axis_variants) c.push_back({op, attrs, {s3}});
  for (const char* op : {"max", "min"})
    for (const auto& attrs : axis_variants) c.push_back({op, attrs, {s3}, {}, {}, distinct()});
  // prod at exact zeros (one per row, then two in the first row): the gradient is a polynomial.
  c.push_back({"prod", {{"axis", "1"}}, {Shape({3, 4})}, {}, {}, [](auto& in) {
                 in[0][1] = in[0][2] = in[0][6] = in[0][11] = 0.0;
               }});
  // NaN is skipped by nansum/nanprod: its gradient is 0 and perturbing it changes nothing.
  for (const char* op : {"nansum", "nanprod"})
    c.push_back({op, {{"axis", "0"}}, {Shape({3, 4})}, {}, {}, [](auto& in) {
                   in[0][5] = std::numeric_limits<double>::quiet_NaN();
                 }});
  c.push_back({"norm", {}, {s3}});
  c.push_back({"norm", {{"axis", "(1, 2)"}, {"keepdims", "True"}}, {s3}});
  c.push_back({"norm", {{"ord", "1"}, {"axis", "0"}}, {s3}, {}, {}, [](auto& in) {
                 for (auto& v : in[0]) v = v < 0 ? v - 0.1 : v + 0.1;  // |x| is smooth away from 0
               }});

  // take: indices (input 1) carry no gradient; repeated indices accumulate.
  c.push_back({"take", {}, {Shape({4, 3}), Shape({5})}, {}, {1}, indices({0, 2, 2, 3, 1})});
  c.push_back({"take",
               {{"axis", "1"}, {"mode", "wrap"}},
               {Shape({2, 4, 3}), Shape({2, 3})},
               {},
               {1},
               indices({-1, 5, 0, 2, 2, 7})});
  c.push_back(
      {"take", {{"axis", "-1"}, {"mode", "clip"}}, {Shape({3, 4}), Shape({4})}, {}, {1}, indices({-3, 9, 1, 1})});
  // gather_nd / scatter_nd: indices (2, 3) address the first two axes of (3, 4, 2); repeated
  // columns accumulate in gather_nd's gradient; scatter_nd's columns are distinct.
  c.push_back({"gather_nd", {}, {Shape({3, 4, 2}), Shape({2, 3})}, {}, {1}, indices({0, 2, 0, 1, -1, 1})});
  c.push_back(
      {"scatter_nd", {{"shape", "(3, 4, 2)"}}, {Shape({3, 2}), Shape({2, 3})}, {}, {1}, indices({0, 2, 1, 1, 3, 0})});
  c.push_back({"_contrib_index_copy", {}, {Shape({5, 3}), Shape({2}), Shape({2, 3})}, {}, {1}, indices({4, 1})});
  c.push_back({"pick", {}, {Shape({3, 4}), Shape({3})}, {}, {1}, indices({3, 0, 2})});
  c.push_back({"pick",
               {{"axis", "0"}, {"keepdims", "True"}, {"mode", "wrap"}},
               {Shape({3, 4}), Shape({1, 4})},
               {},
               {1},
               indices({-1, 4, 1, 2})});

  c.push_back({"sort", {}, {s3}, {}, {}, distinct()});
  c.push_back({"sort", {{"axis", "0"}, {"is_ascend", "False"}}, {s3}, {}, {}, distinct()});
  c.push_back({"sort", {{"axis", "None"}}, {s3}, {}, {}, distinct()});
  c.push_back({"topk", {{"k", "2"}, {"ret_typ", "value"}}, {s3}, {}, {}, distinct()});
  c.push_back(
      {"topk", {{"axis", "1"}, {"k", "2"}, {"ret_typ", "both"}, {"is_ascend", "True"}}, {s3}, {}, {}, distinct()});
  c.push_back({"topk", {{"axis", "None"}, {"k", "5"}, {"ret_typ", "value"}}, {s3}, {}, {}, distinct()});
  c.push_back({"topk", {{"k", "3"}, {"ret_typ", "mask"}}, {s3}, {}, {}, distinct()});  // zero gradient
  return c;
}

}  // namespace braid::test
