#include "braid/init/init.h"

#include <cmath>

#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/random.h"
#include "braid/op/param_reader.h"

namespace braid::init {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void Initializer::operator()(const std::string& name, NDArray& arr) const {
  if (ends_with(name, "weight")) return init_weight(name, arr);
  for (const char* zero : {"bias", "beta", "running_mean", "moving_mean", "moving_inv_var", "moving_avg"})
    if (ends_with(name, zero)) {
      arr.fill(0);
      return;
    }
  for (const char* one : {"gamma", "running_var", "moving_var"})
    if (ends_with(name, one)) {
      arr.fill(1);
      return;
    }
  throw Error(cat("unknown initialization pattern for '", name,
                  "': default initialization covers names ending "
                  "in weight, bias, gamma (1), beta (0), running_mean/moving_mean (0) and running_var/moving_var "
                  "(1); give the parameter its own initializer"));
}

void Uniform::init_weight(const std::string&, NDArray& arr) const {
  arr.assign(nd::random_uniform(-scale_, scale_, arr.shape(), arr.ctx(), arr.dtype()));
}
std::string Uniform::str() const { return cat("Uniform(scale=", op::format_number(scale_), ")"); }

void Normal::init_weight(const std::string&, NDArray& arr) const {
  arr.assign(nd::random_normal(0.0, sigma_, arr.shape(), arr.ctx(), arr.dtype()));
}
std::string Normal::str() const { return cat("Normal(sigma=", op::format_number(sigma_), ")"); }

void Constant::init_weight(const std::string&, NDArray& arr) const {
  if (array_.is_none()) {
    arr.fill(value_);
    return;
  }
  NDArray v = array_.as_in_context(arr.ctx()).astype(arr.dtype());
  if (v.shape() != arr.shape()) v = nd::invoke("broadcast_to", {v}, {{"shape", arr.shape().str()}})[0];
  arr.assign(v);
}
std::string Constant::str() const {
  return array_.is_none() ? cat("Constant(value=", op::format_number(value_), ")")
                          : cat("Constant(value=<array ", array_.shape().str(), ">)");
}

Xavier::Xavier(std::string rnd_type, std::string factor_type, double magnitude)
    : rnd_type_(std::move(rnd_type)), factor_type_(std::move(factor_type)), magnitude_(magnitude) {
  BRAID_CHECK(rnd_type_ == "uniform" || rnd_type_ == "gaussian", "Xavier: unknown rnd_type '", rnd_type_,
              "'; valid: uniform, gaussian");
  BRAID_CHECK(factor_type_ == "avg" || factor_type_ == "in" || factor_type_ == "out", "Xavier: unknown factor_type '",
              factor_type_, "'; valid: avg, in, out");
}

void Xavier::init_weight(const std::string& name, NDArray& arr) const {
  const Shape& s = arr.shape();
  BRAID_CHECK(s.ndim() >= 2, "Xavier initializer cannot initialize '", name, "' of shape ", s,
              ": it needs at least 2 dimensions (use Uniform or Normal for vectors)");
  const double kernel = static_cast<double>(s.prod(2, s.ndim()));
  const double fan_in = static_cast<double>(s[1]) * kernel, fan_out = static_cast<double>(s[0]) * kernel;
  const double factor = factor_type_ == "avg" ? (fan_in + fan_out) / 2 : factor_type_ == "in" ? fan_in : fan_out;
  const double scale = std::sqrt(magnitude_ / factor);
  arr.assign(rnd_type_ == "uniform" ? nd::random_uniform(-scale, scale, s, arr.ctx(), arr.dtype())
                                    : nd::random_normal(0.0, scale, s, arr.ctx(), arr.dtype()));
}

std::string Xavier::str() const {
  return cat("Xavier(rnd_type=", rnd_type_, ", factor_type=", factor_type_,
             ", magnitude=", op::format_number(magnitude_), ")");
}

MSRAPrelu::MSRAPrelu(std::string factor_type, double slope)
    : Xavier("gaussian", factor_type, 2.0 / (1.0 + slope * slope)), factor_(factor_type), slope_(slope) {}

std::string MSRAPrelu::str() const {
  return cat("MSRAPrelu(factor_type=", factor_, ", slope=", op::format_number(slope_), ")");
}

InitializerPtr create(const std::string& name) {
  if (name == "uniform") return std::make_shared<Uniform>();
  if (name == "normal") return std::make_shared<Normal>();
  if (name == "xavier") return std::make_shared<Xavier>();
  if (name == "msraprelu") return std::make_shared<MSRAPrelu>();
  if (name == "zeros" || name == "zero") return std::make_shared<Zero>();
  if (name == "ones" || name == "one") return std::make_shared<One>();
  throw Error(cat("unknown initializer '", name, "'; valid: uniform, normal, xavier, msraprelu, zeros, ones"));
}

}  // namespace braid::init
