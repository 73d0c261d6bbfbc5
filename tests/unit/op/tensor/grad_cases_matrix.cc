// Gradient-check cases of the matrix family (src/op/tensor/matrix_*.cc).
#include "unit/op/grad_cases.h"

namespace braid::test {

std::vector<GradCase> matrix_grad_cases() {
  std::vector<GradCase> c;
  auto dot = [&](const char* op, bool ta, bool tb, Shape l, Shape r) {
    c.push_back({op, {{"transpose_a", ta ? "True" : "False"}, {"transpose_b", tb ? "True" : "False"}}, {l, r}});
  };
  dot("dot", false, false, Shape({3, 4}), Shape({4, 5}));
  dot("dot", true, false, Shape({4, 3}), Shape({4, 5}));
  dot("dot", false, true, Shape({3, 4}), Shape({5, 4}));
  dot("dot", true, true, Shape({4, 3}), Shape({5, 4}));
  dot("dot", false, false, Shape({4}), Shape({4}));
  dot("dot", false, false, Shape({4}), Shape({4, 3}));
  dot("dot", false, false, Shape({3, 4}), Shape({4}));
  dot("dot", false, false, Shape({2, 3, 4}), Shape({4, 2, 3}));
  dot("dot", true, false, Shape({4, 2, 3}), Shape({4, 5}));
  dot("dot", false, true, Shape({3, 4}), Shape({2, 3, 4}));
  dot("dot", true, true, Shape({3, 2, 2}), Shape({2, 5, 3}));
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      dot("batch_dot", ta, tb, ta ? Shape({2, 4, 3}) : Shape({2, 3, 4}), tb ? Shape({2, 5, 4}) : Shape({2, 4, 5}));
  dot("batch_dot", false, true, Shape({2, 2, 3, 4}), Shape({2, 2, 2, 4}));

  c.push_back({"transpose", {}, {Shape({2, 3, 4})}});
  c.push_back({"SwapAxis", {{"dim1", "0"}, {"dim2", "2"}}, {Shape({2, 3, 4})}});
  c.push_back({"depth_to_space", {{"block_size", "2"}}, {Shape({2, 8, 2, 3})}});
  c.push_back({"space_to_depth", {{"block_size", "2"}}, {Shape({2, 2, 4, 6})}});
  c.push_back({"reshape_like", {}, {Shape({2, 6}), Shape({3, 4})}});
  c.push_back({"transpose", {{"axes", "(1, 0, 2)"}}, {Shape({2, 3, 4})}});
  c.push_back({"transpose", {{"axes", "(0, -1, 1)"}}, {Shape({2, 3, 4})}});
  c.push_back({"transpose", {}, {Shape({35, 33})}});  // crosses the 32x32 tiles
  c.push_back({"Reshape", {{"shape", "(-1, 2)"}}, {Shape({3, 4})}});
  c.push_back({"Reshape", {{"shape", "(0, -3)"}}, {Shape({2, 3, 4})}});
  c.push_back({"Reshape", {{"shape", "(-1, 0)"}, {"reverse", "True"}}, {Shape({2, 3, 4})}});
  c.push_back({"expand_dims", {{"axis", "1"}}, {Shape({2, 3})}});
  c.push_back({"squeeze", {}, {Shape({2, 1, 3, 1})}});
  c.push_back({"squeeze", {{"axis", "(1,)"}}, {Shape({2, 1, 3, 1})}});
  c.push_back({"_np_reshape", {{"newshape", "(4, -1)"}}, {Shape({2, 3, 2})}});
  c.push_back({"_npx_reshape", {{"newshape", "(-2, -6, 1, -1, -2)"}}, {Shape({2, 3, 2})}});
  c.push_back({"_npx_reshape", {{"newshape", "(-1, -2)"}, {"reverse", "True"}}, {Shape({2, 3, 2})}});
  c.push_back({"_np_squeeze", {}, {Shape({2, 1, 3, 1})}});
  c.push_back({"concat", {{"num_args", "3"}, {"dim", "1"}}, {Shape({2, 1, 3}), Shape({2, 4, 3}), Shape({2, 2, 3})}});
  c.push_back({"concat", {{"num_args", "2"}, {"dim", "0"}}, {Shape({2, 3}), Shape({1, 3})}});
  c.push_back({"concat", {{"num_args", "2"}, {"dim", "-1"}}, {Shape({2, 3}), Shape({2, 2})}});
  c.push_back({"stack", {{"num_args", "3"}}, {Shape({2, 3}), Shape({2, 3}), Shape({2, 3})}});
  c.push_back({"stack", {{"num_args", "2"}, {"axis", "-1"}}, {Shape({2, 3}), Shape({2, 3})}});
  c.push_back({"split", {{"num_outputs", "3"}}, {Shape({2, 6, 2})}});
  c.push_back({"split", {{"num_outputs", "2"}, {"axis", "0"}, {"squeeze_axis", "True"}}, {Shape({2, 3})}});
  c.push_back({"tile", {{"reps", "(2, 3)"}}, {Shape({2, 3})}});
  c.push_back({"tile", {{"reps", "(2, 1, 2)"}}, {Shape({3, 2})}});
  c.push_back({"tile", {{"reps", "(3,)"}}, {Shape({2, 2})}});
  c.push_back({"repeat", {{"repeats", "2"}}, {Shape({2, 3})}});
  c.push_back({"repeat", {{"repeats", "3"}, {"axis", "1"}}, {Shape({2, 3})}});
  c.push_back({"repeat", {{"repeats", "2"}, {"axis", "-3"}}, {Shape({2, 3, 2})}});
  c.push_back({"flip", {{"axis", "(1,)"}}, {Shape({2, 3, 4})}});
  c.push_back({"flip", {{"axis", "(0, 2)"}}, {Shape({2, 3, 4})}});
  c.push_back({"slice_axis", {{"axis", "1"}, {"begin", "1"}, {"end", "3"}}, {Shape({2, 4, 3})}});
  c.push_back({"slice_axis", {{"axis", "-1"}, {"begin", "-2"}, {"end", "None"}}, {Shape({2, 4, 3})}});
  c.push_back({"slice", {{"begin", "(None, 1)"}, {"end", "(None, -1)"}, {"step", "(-1, 2)"}}, {Shape({3, 5, 2})}});
  c.push_back({"slice_like", {{"axes", "(0, 2)"}}, {Shape({3, 4, 5}), Shape({2, 9, 3})}, {}, {1}});
  c.push_back({"slice_like", {}, {Shape({3, 4}), Shape({2, 2})}, {}, {1}});
  c.push_back({"Crop", {{"num_args", "1"}, {"h_w", "(3, 2)"}, {"offset", "(1, 2)"}}, {Shape({2, 3, 6, 5})}});
  c.push_back(
      {"Crop", {{"num_args", "2"}, {"center_crop", "True"}}, {Shape({2, 3, 6, 5}), Shape({1, 1, 3, 4})}, {}, {1}});
  c.push_back({"_slice_assign",
               {{"begin", "(1, None)"}, {"end", "(3, None)"}, {"step", "(1, 2)"}},
               {Shape({4, 5}), Shape({2, 3})}});
  c.push_back({"_slice_assign_scalar", {{"begin", "(0,)"}, {"end", "(2,)"}, {"scalar", "3"}}, {Shape({3, 2})}});
  c.push_back({"_split_v2", {{"indices", "(0, 1, 4)"}, {"axis", "1"}}, {Shape({2, 5, 2})}});
  c.push_back({"_split_v2", {{"sections", "2"}, {"axis", "0"}, {"squeeze_axis", "True"}}, {Shape({2, 3})}});
  return c;
}

}  // namespace braid::test
