#include "models.h"

#include <algorithm>
#include <vector>

#include "braid/base/ascii.h"
#include "braid/base/error.h"
#include "braid/base/suggest.h"
#include "braid/gluon/model_zoo/simple.h"
#include "braid/gluon/model_zoo/vision.h"

namespace braid::cli {

namespace {
bool is_simple(const std::string& name) {
  const auto simple = gluon::model_zoo::simple_model_names();
  return std::find(simple.begin(), simple.end(), name) != simple.end();
}
}  // namespace

gluon::BlockPtr make_model(const std::string& name, int64_t classes) {
  namespace zoo = gluon::model_zoo;
  if (is_simple(name)) return zoo::get_simple_model(name, static_cast<int>(classes));
  const auto vision = zoo::vision::model_names();
  if (std::find(vision.begin(), vision.end(), to_lower(name)) != vision.end())
    return zoo::vision::get_model(name, classes);
  std::vector<std::string> all = zoo::simple_model_names();
  all.insert(all.end(), vision.begin(), vision.end());
  throw Error(cat("unknown model '", name, "'", did_you_mean(name, all), "; valid: ", comma_list(all)));
}

Shape sample_shape(const std::string& name) {
  if (is_simple(name)) return Shape({1, 1, 28, 28});
  const int64_t side = to_lower(name).find("inception") != std::string::npos ? 299 : 224;
  return Shape({1, 3, side, side});
}

}  // namespace braid::cli
