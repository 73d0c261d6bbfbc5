#pragma once
/// Initializers (MXNet's mx.init). Called with a parameter's name, an initializer fills the array
/// by MXNet's naming rule: names ending in "weight" get the initializer's own distribution,
/// "bias"/"beta"/"running_mean"/"moving_mean" zeros, "gamma"/"running_var"/"moving_var" ones.
/// A parameter given its own initializer (Dense's bias_initializer, ...) uses it whatever its
/// name. Random draws come from the global seed (nd::seed).
#include <memory>
#include <string>

#include "braid/ndarray/ndarray.h"

namespace braid::init {

class Initializer {
 public:
  virtual ~Initializer() = default;
  /// Fills `arr` by the naming rule above; throws for a name matching no rule.
  void operator()(const std::string& name, NDArray& arr) const;
  /// Fills `arr` with this initializer's distribution, whatever the name.
  virtual void init_weight(const std::string& name, NDArray& arr) const = 0;
  /// MXNet's repr, e.g. "Xavier(rnd_type=uniform, factor_type=avg, magnitude=3)".
  virtual std::string str() const = 0;
};

using InitializerPtr = std::shared_ptr<const Initializer>;

/// Uniform in [-scale, scale].
class Uniform : public Initializer {
 public:
  explicit Uniform(double scale = 0.07) : scale_(scale) {}
  void init_weight(const std::string& name, NDArray& arr) const override;
  std::string str() const override;

 private:
  double scale_;
};

/// Normal with mean 0 and standard deviation sigma.
class Normal : public Initializer {
 public:
  explicit Normal(double sigma = 0.01) : sigma_(sigma) {}
  void init_weight(const std::string& name, NDArray& arr) const override;
  std::string str() const override;

 private:
  double sigma_;
};

/// Every element `value`; or an array `value`, broadcast to the weight's shape (MXNet's
/// Constant(value=NDArray)).
class Constant : public Initializer {
 public:
  explicit Constant(double value) : value_(value) {}
  explicit Constant(NDArray value) : array_(std::move(value)) {}
  void init_weight(const std::string& name, NDArray& arr) const override;
  std::string str() const override;

 private:
  double value_ = 0;
  NDArray array_;  // None for a number
};

class Zero : public Constant {
 public:
  Zero() : Constant(0.0) {}
  std::string str() const override { return "Zero()"; }
};

class One : public Constant {
 public:
  One() : Constant(1.0) {}
  std::string str() const override { return "One()"; }
};

/// Glorot & Bengio: scale = sqrt(magnitude / factor) with factor the fan-in, fan-out or their
/// mean ("in", "out", "avg"); fans count shape[1] resp. shape[0] times the kernel size. Values
/// uniform in [-scale, scale] or normal with sd scale ("uniform", "gaussian").
class Xavier : public Initializer {
 public:
  explicit Xavier(std::string rnd_type = "uniform", std::string factor_type = "avg", double magnitude = 3.0);
  void init_weight(const std::string& name, NDArray& arr) const override;
  std::string str() const override;

 private:
  std::string rnd_type_, factor_type_;
  double magnitude_;
};

/// He et al. for PReLU: gaussian Xavier with magnitude 2 / (1 + slope^2).
class MSRAPrelu : public Xavier {
 public:
  explicit MSRAPrelu(std::string factor_type = "avg", double slope = 0.25);
  std::string str() const override;

 private:
  std::string factor_;
  double slope_;
};

/// By MXNet name ("uniform", "normal", "xavier", "msraprelu", "zeros"/"zero", "ones"/"one");
/// throws for an unknown name.
InitializerPtr create(const std::string& name);

}  // namespace braid::init
