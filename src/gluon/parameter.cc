#include "braid/gluon/parameter.h"

#include <algorithm>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/base/np_shape.h"
#include "braid/gluon/trainer.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/sparse.h"
#include "imperative/recorder.h"
#include "imperative/tape.h"
#include "imperative/tracer.h"

namespace braid::gluon {
namespace {

std::string ctx_list(const std::vector<Context>& ctx) {
  std::string s = "[";
  for (size_t i = 0; i < ctx.size(); ++i) s += cat(i ? ", " : "", ctx[i]);
  return s + "]";
}

/// Known with every dimension: a parameter's unknown dimension is 0 whatever the shape semantics
/// (MXNet's Gluon reads it so under np_shape too).
bool shape_complete(const Shape& s) {
  const NpShapeScope parameter_shapes(false);
  return s.fully_known();
}

/// Whether `known` and `shape` (either possibly with unknown 0 dims) can describe one shape.
bool compatible(const Shape& known, const Shape& shape) {
  if (known.ndim() < 0) return true;
  if (known.ndim() != shape.ndim()) return false;
  for (int i = 0; i < shape.ndim(); ++i)
    if (known[i] != 0 && shape[i] != 0 && known[i] != shape[i]) return false;
  return true;
}

/// What both say: each dimension from whichever knows it (MXNet's ParameterDict.get).
Shape merge(const Shape& known, const Shape& shape) {
  if (known.ndim() < 0) return shape;
  Shape out = shape;
  for (int i = 0; i < shape.ndim(); ++i)
    if (shape[i] == 0) out[i] = known[i];
  return out;
}

thread_local bool thread_np_array_interface = false;

}  // namespace

bool np_array_interface() { return thread_np_array_interface; }

void set_np_array_interface(bool on) { thread_np_array_interface = on; }

Parameter::Parameter(std::string name, Shape shape, DType dtype, GradReq grad_req, init::InitializerPtr init,
                     bool allow_deferred_init)
    : name_(std::move(name)),
      shape_(std::move(shape)),
      dtype_(dtype),
      grad_req_(grad_req),
      init_(std::move(init)),
      allow_deferred_init_(allow_deferred_init) {}

void Parameter::set_shape(const Shape& shape) {
  BRAID_CHECK(compatible(shape_, shape), "Parameter '", name_, "': expected shape ", shape_,
              " is incompatible with the given shape ", shape);
  shape_ = merge(shape_, shape);
}

void Parameter::set_grad_req(GradReq req) {
  if (req == grad_req_) return;
  grad_req_ = req;
  if (initialized()) attach_grads();
}

void Parameter::set_grad_stype(StorageType stype) {
  if (stype == grad_stype_) return;
  grad_stype_ = stype;
  if (initialized()) attach_grads();
}

void Parameter::initialize(const init::InitializerPtr& default_init, const std::vector<Context>& ctx, bool force_reinit,
                           const init::InitializerPtr& init) {
  BRAID_CHECK(!ctx.empty(), "Parameter '", name_, "': initialize needs at least one context");
  if (initialized() && !force_reinit) return;
  data_.clear();
  grad_.clear();
  ctx_ = ctx;
  deferred_default_ = default_init;
  deferred_init_ = init;
  if (!shape_complete(shape_)) {
    BRAID_CHECK(allow_deferred_init_, "cannot initialize Parameter '", name_, "' because it has the invalid shape ",
                shape_, "; give it a complete shape");
    deferred_ = true;
    return;
  }
  finish_deferred_init(shape_);
}

void Parameter::finish_deferred_init(const Shape& shape) {
  set_shape(shape);
  if (!deferred_ && initialized()) return;
  imperative::TracerPause untraced;  // initializing is no part of a hybridized forward's graph
  BRAID_CHECK(!ctx_.empty(), "Parameter '", name_, "' has no context: call initialize first");
  NDArray value(shape_, cpu(), dtype_);
  // MXNet 1.x hands the chosen initializer to the parameter as its "__init__" attribute, which
  // fills the array by the initializer's own rule whatever the name.
  if (deferred_init_) {
    deferred_init_->init_weight(name_, value);
  } else if (init_) {
    init_->init_weight(name_, value);
  } else if (deferred_default_) {
    deferred_default_->init_weight(name_, value);
  } else {
    init::Uniform().init_weight(name_, value);  // MXNet's default initializer
  }
  deferred_ = false;
  init_impl(value, ctx_);
}

void Parameter::init_impl(const NDArray& value, const std::vector<Context>& ctx) {
  autograd::PauseScope pause;
  np_arrays_ = np_array_interface();
  ctx_ = ctx;
  data_.clear();
  for (const auto& c : ctx) data_.push_back(value.copyto(c));
  attach_grads();
}

void Parameter::attach_grads() {
  grad_.clear();
  for (auto& d : data_) {
    if (grad_req_ == GradReq::Null) {
      d.attach_grad(GradReq::Null);
      continue;
    }
    d.attach_grad(grad_req_, grad_stype_);
    grad_.push_back(d.grad());
  }
}

void Parameter::check_initialized() const {
  BRAID_CHECK(!deferred_, "Parameter '", name_,
              "' has not been initialized yet because initialization was "
              "deferred; the actual initialization happens during the first forward pass");
  BRAID_CHECK(initialized(), "Parameter '", name_,
              "' has not been initialized; call initialize() on it or on "
              "its block (block.initialize() or collect_params().initialize())");
}

size_t Parameter::index_of(std::optional<Context> ctx) const {
  check_initialized();
  if (!ctx) {
    BRAID_CHECK(ctx_.size() == 1, "Parameter '", name_, "' lives on several contexts ", ctx_list(ctx_),
                "; name the one you want");
    return 0;
  }
  auto it = std::find(ctx_.begin(), ctx_.end(), *ctx);
  BRAID_CHECK(it != ctx_.end(), "Parameter '", name_, "' was not initialized on context ", *ctx,
              "; it was only initialized on ", ctx_list(ctx_));
  return static_cast<size_t>(it - ctx_.begin());
}

NDArray Parameter::data(std::optional<Context> ctx) const { return data_[index_of(ctx)]; }

NDArray Parameter::row_sparse_data(const NDArray& row_id) const {
  const NDArray& value = data_[index_of(row_id.ctx())];
  NDArray rows;
  {
    autograd::PauseScope pause(imperative::is_training());
    auto trainer = trainer_.lock();
    if (trainer && trainer->serves_rows(*this)) {  // only the rows asked for come from the store
      rows = sparse::zeros(StorageType::RowSparse, value.shape(), value.ctx(), value.dtype());
      trainer->pull_rows(*this, rows, row_id);
    } else {
      rows = sparse::retain(value, row_id);
    }
  }
  imperative::Access::entry(rows) = imperative::Access::entry(value);
  return rows;
}

std::vector<NDArray> Parameter::list_data() const {
  check_initialized();
  return data_;
}

NDArray Parameter::grad(std::optional<Context> ctx) const {
  size_t i = index_of(ctx);
  BRAID_CHECK(grad_req_ != GradReq::Null, "cannot get the gradient of Parameter '", name_,
              "' because its grad_req is 'null'");
  return grad_[i];
}

std::vector<NDArray> Parameter::list_grad() const {
  check_initialized();
  BRAID_CHECK(grad_req_ != GradReq::Null, "cannot get the gradient of Parameter '", name_,
              "' because its grad_req is 'null'");
  return grad_;
}

std::vector<Context> Parameter::list_ctx() const {
  BRAID_CHECK(initialized() || deferred_, "Parameter '", name_, "' has not been initialized");
  return ctx_;
}

void Parameter::zero_grad() {
  for (auto& g : grad_) g.fill(0);
}

void Parameter::set_data(const NDArray& value) {
  set_shape(value.shape());
  if (deferred_) finish_deferred_init(value.shape());
  check_initialized();
  autograd::PauseScope pause;
  for (auto& d : data_) d.assign(value.as_in_context(d.ctx()));
}

void Parameter::reset_ctx(const std::vector<Context>& ctx) {
  if (deferred_ || !initialized()) {
    ctx_ = ctx;
    return;
  }
  init_impl(reduce(), ctx);
}

void Parameter::cast(DType dtype) {
  dtype_ = dtype;
  if (!initialized()) return;
  autograd::PauseScope pause;
  for (auto& d : data_) d = d.astype(dtype);
  attach_grads();
}

NDArray Parameter::reduce() const {
  check_initialized();
  autograd::PauseScope pause;
  if (auto trainer = trainer_.lock(); trainer && trainer->serves_rows(*this)) trainer->pull_whole(*this);
  NDArray sum = data_[0].copyto(cpu());
  for (size_t i = 1; i < data_.size(); ++i) sum += data_[i].copyto(cpu());
  if (data_.size() > 1) sum /= static_cast<double>(data_.size());
  return sum;
}

void Parameter::load_init(const NDArray& value, const std::vector<Context>& ctx, bool cast_dtype) {
  BRAID_CHECK(compatible(shape_, value.shape()), "failed loading Parameter '", name_, "' from saved params: shape ",
              "incompatible, expected ", shape_, " vs saved ", value.shape());
  BRAID_CHECK(cast_dtype || value.dtype() == dtype_, "failed loading Parameter '", name_,
              "' from saved params: "
              "dtype incompatible, expected ",
              dtype_name(dtype_), " vs saved ", dtype_name(value.dtype()), "; pass cast_dtype=true to convert");
  shape_ = value.shape();
  NDArray v = value.dtype() == dtype_ ? value : value.astype(dtype_);
  if (initialized() && !deferred_) {
    set_data(v);
    return;
  }
  deferred_ = false;
  init_impl(v, ctx_.empty() ? ctx : ctx_);
}

}  // namespace braid::gluon
