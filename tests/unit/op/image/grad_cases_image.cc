// Gradient-check cases of the image operators (src/op/image/).
#include "unit/op/grad_cases.h"

namespace braid::test {

std::vector<GradCase> image_grad_cases() {
  std::vector<GradCase> c;
  c.push_back({"_image_normalize", {{"mean", "(0.1, 0.2, 0.3)"}, {"std", "(0.5, 2, 4)"}}, {Shape({3, 2, 2})}});
  c.push_back({"_image_normalize", {{"mean", "0.5"}, {"std", "0.25"}}, {Shape({2, 1, 2, 3})}});
  c.push_back({"_image_flip_left_right", {}, {Shape({3, 4, 2})}});
  c.push_back({"_image_flip_left_right", {}, {Shape({2, 2, 3, 1})}});
  c.push_back({"_image_crop", {{"x", "1"}, {"y", "2"}, {"width", "3"}, {"height", "2"}}, {Shape({4, 5, 3})}});
  c.push_back({"_image_crop", {{"x", "0"}, {"y", "1"}, {"width", "2"}, {"height", "1"}}, {Shape({2, 3, 2, 1})}});
  c.push_back({"_image_padded_crop",
               {{"x", "-1"}, {"y", "1"}, {"width", "4"}, {"height", "3"}, {"pad_value", "0.5"}},
               {Shape({3, 3, 2})}});
  c.push_back({"_image_padded_crop", {{"x", "1"}, {"y", "0"}, {"width", "1"}, {"height", "2"}}, {Shape({2, 2, 3, 1})}});
  return c;
}

}  // namespace braid::test
