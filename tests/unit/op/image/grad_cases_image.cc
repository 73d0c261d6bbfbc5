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
  c.push_back({"_image_flip_top_bottom", {}, {Shape({3, 4, 2})}});
  c.push_back({"_image_flip_top_bottom", {}, {Shape({2, 3, 2, 1})}});
  // The colour augmenters have MXNet's straight-through gradient (dx = dy), which is the
  // derivative only where the op is the identity: their cases sit there (factor 1, hue turn 0,
  // no jitter, no lighting offset), and so check the backward's wiring and req handling.
  c.push_back({"_image_random_brightness", {{"min_factor", "1"}, {"max_factor", "1"}}, {Shape({3, 4, 3})}});
  c.push_back({"_image_random_brightness", {{"min_factor", "1"}, {"max_factor", "1"}}, {Shape({2, 2, 3, 1})}});
  c.push_back({"_image_random_contrast", {{"min_factor", "1"}, {"max_factor", "1"}}, {Shape({3, 4, 3})}});
  c.push_back({"_image_random_contrast", {{"min_factor", "1"}, {"max_factor", "1"}}, {Shape({2, 2, 3, 1})}});
  c.push_back({"_image_random_saturation", {{"min_factor", "1"}, {"max_factor", "1"}}, {Shape({2, 3, 4, 3})}});
  c.push_back({"_image_random_hue", {{"min_factor", "0"}, {"max_factor", "0"}}, {Shape({2, 3, 3})}, {{20.0, 230.0}}});
  c.push_back({"_image_random_color_jitter",
               {{"brightness", "0"}, {"contrast", "0"}, {"saturation", "0"}, {"hue", "0"}},
               {Shape({2, 2, 3, 3})}});
  c.push_back({"_image_adjust_lighting", {{"alpha", "(0, 0, 0)"}}, {Shape({3, 2, 3})}});
  c.push_back({"_image_random_lighting", {{"alpha_std", "0"}}, {Shape({2, 2, 3, 3})}});
  return c;
}

}  // namespace braid::test
