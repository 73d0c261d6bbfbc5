#pragma once
/// Gluon parameters (MXNet's gluon.Parameter and ParameterDict). A Parameter owns one copy of
/// its value per context, each with a gradient buffer when grad_req is not null. A shape with
/// unknown (0) dimensions is completed at the first forward: initialization waits until then.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "braid/init/init.h"
#include "braid/ndarray/ndarray.h"

namespace braid::gluon {

class Trainer;

/// Whether the calling thread uses MXNet's mx.np interface (Python's is_np_array(), kept in step
/// by mx.util): arrays a parameter creates then are mx.np arrays for good, as in MXNet.
bool np_array_interface();
void set_np_array_interface(bool on);

class Parameter {
 public:
  /// `init`: this parameter's own initializer (else the one given to initialize()).
  explicit Parameter(std::string name, Shape shape = Shape(), DType dtype = DType::Float32,
                     GradReq grad_req = GradReq::Write, init::InitializerPtr init = nullptr,
                     bool allow_deferred_init = true);

  const std::string& name() const { return name_; }
  const Shape& shape() const { return shape_; }
  /// Completes unknown (0) dimensions; known ones must agree.
  void set_shape(const Shape& shape);
  DType dtype() const { return dtype_; }
  GradReq grad_req() const { return grad_req_; }
  /// Changing it re-creates (write/add) or drops (null) the gradient buffers.
  void set_grad_req(GradReq req);
  /// How the gradient buffers are stored (MXNet's grad_stype; row_sparse for Embedding's
  /// sparse_grad). Changing it re-creates them.
  StorageType grad_stype() const { return grad_stype_; }
  void set_grad_stype(StorageType stype);
  /// How MXNet stores the value (row_sparse: read through row_sparse_data); Braid keeps it dense.
  StorageType stype() const { return stype_; }
  void set_stype(StorageType stype) { stype_ = stype; }
  /// The Trainer that updates this parameter, while it lives (MXNet's Parameter._trainer).
  std::shared_ptr<Trainer> trainer() const { return trainer_.lock(); }
  void set_trainer(const std::shared_ptr<Trainer>& trainer) { trainer_ = trainer; }
  const init::InitializerPtr& init() const { return init_; }
  void set_init(init::InitializerPtr init) { init_ = std::move(init); }

  /// Per-parameter multipliers of the optimizer's learning rate and weight decay.
  double lr_mult = 1.0;
  double wd_mult = 1.0;

  /// Creates the value on each context: filled on the CPU by `init` if given, else this
  /// parameter's initializer, else `default_init` (else Uniform), then copied. As in MXNet 1.x
  /// the chosen initializer fills the array by its own rule whatever the parameter's name (its
  /// init_weight). With unknown dimensions it waits for the first forward. Already initialized:
  /// nothing, unless force_reinit.
  void initialize(const init::InitializerPtr& default_init = nullptr, const std::vector<Context>& ctx = {cpu()},
                  bool force_reinit = false, const init::InitializerPtr& init = nullptr);
  bool initialized() const { return !data_.empty(); }
  /// Whether the value and gradient were created under the mx.np interface (given to Python as
  /// mx.np arrays).
  bool np_arrays() const { return np_arrays_; }
  /// Initialization waits for the shape (set_shape, then finish_deferred_init).
  bool deferred() const { return deferred_; }
  /// Completes the shape and runs the initialization initialize() postponed.
  void finish_deferred_init(const Shape& shape);

  /// The value on `ctx` (the only context when there is one and ctx is omitted).
  NDArray data(std::optional<Context> ctx = std::nullopt) const;
  std::vector<NDArray> list_data() const;
  /// Rows `row_id` of the value on row_id's context, row_sparse (MXNet's row_sparse_data). To
  /// autograd it is the parameter itself: gradients computed from it go into grad().
  NDArray row_sparse_data(const NDArray& row_id) const;
  /// The gradient buffer on `ctx`; throws when grad_req is null.
  NDArray grad(std::optional<Context> ctx = std::nullopt) const;
  std::vector<NDArray> list_grad() const;
  std::vector<Context> list_ctx() const;
  void zero_grad();
  /// Copies `value` into every context's copy (initializing a deferred parameter with it).
  void set_data(const NDArray& value);
  /// Moves the value to the contexts `ctx` (MXNet's reset_ctx).
  void reset_ctx(const std::vector<Context>& ctx);
  /// Converts value and gradient to `dtype`.
  void cast(DType dtype);
  /// The value as saved: the mean of the context copies, on the CPU.
  NDArray reduce() const;
  /// Sets shape, dtype and value from a loaded array (MXNet's _load_init); with `cast_dtype`
  /// a different dtype is converted, else it is an error.
  void load_init(const NDArray& value, const std::vector<Context>& ctx, bool cast_dtype = false);

 private:
  void init_impl(const NDArray& value, const std::vector<Context>& ctx);
  void attach_grads();
  size_t index_of(std::optional<Context> ctx) const;
  void check_initialized() const;

  std::string name_;
  Shape shape_;
  DType dtype_;
  GradReq grad_req_;
  StorageType grad_stype_ = StorageType::Default;
  StorageType stype_ = StorageType::Default;
  std::weak_ptr<Trainer> trainer_;
  init::InitializerPtr init_;
  bool allow_deferred_init_;
  bool deferred_ = false;
  bool np_arrays_ = false;
  init::InitializerPtr deferred_default_;
  init::InitializerPtr deferred_init_;  // initialize()'s own `init`, overriding init_
  std::vector<Context> ctx_;
  std::vector<NDArray> data_, grad_;
};

using ParameterPtr = std::shared_ptr<Parameter>;

/// Parameters by full name ("dense0_weight"), in insertion order.
class ParameterDict {
 public:
  /// `shared`: parameters to take (by full name) before making new ones — MXNet's
  /// ParameterDict(prefix, shared), behind `Block(params=...)`.
  explicit ParameterDict(std::string prefix = "", std::shared_ptr<const ParameterDict> shared = nullptr)
      : prefix_(std::move(prefix)), shared_(std::move(shared)) {}
  const std::string& prefix() const { return prefix_; }
  const std::shared_ptr<const ParameterDict>& shared() const { return shared_; }

  /// The parameter prefix+name: this dictionary's, else the shared one's (then added here), else
  /// a new one with the given properties. An existing one must agree on the shape (unknown dims aside).
  ParameterPtr get(const std::string& name, Shape shape = Shape(), DType dtype = DType::Float32,
                   GradReq grad_req = GradReq::Write, init::InitializerPtr init = nullptr,
                   bool allow_deferred_init = true);
  /// Adds an existing parameter under its own name (sharing it); a different one of the same
  /// name is an error.
  void add(const ParameterPtr& p);
  /// Adds every parameter of `other`.
  void update(const ParameterDict& other);
  /// Parameter by full name; throws naming the ones that exist.
  const ParameterPtr& operator[](const std::string& full_name) const;
  bool contains(const std::string& full_name) const { return index_.count(full_name) != 0; }
  size_t size() const { return params_.size(); }
  bool empty() const { return params_.empty(); }
  std::vector<std::string> keys() const;
  /// The parameters whose full name matches `pattern` at its start (Python's re.match), e.g.
  /// ".*weight" or "conv0_|dense1_".
  ParameterDict select(const std::string& pattern) const;
  auto begin() const { return params_.begin(); }
  auto end() const { return params_.end(); }

  void initialize(const init::InitializerPtr& init = nullptr, const std::vector<Context>& ctx = {cpu()},
                  bool force_reinit = false);
  void zero_grad();
  void reset_ctx(const std::vector<Context>& ctx);
  void set_grad_req(GradReq req);
  void set_lr_mult(double m);
  void set_wd_mult(double m);
  /// Saves every parameter by full name, `strip_prefix` removed (MXNet's ParameterDict.save).
  void save(const std::string& path, const std::string& strip_prefix = "") const;
  /// Loads names saved by save(), `restore_prefix` prepended.
  void load(const std::string& path, const std::vector<Context>& ctx = {cpu()}, bool allow_missing = false,
            bool ignore_extra = false, const std::string& restore_prefix = "", bool cast_dtype = false);

 private:
  std::string prefix_;
  std::shared_ptr<const ParameterDict> shared_;
  std::vector<std::pair<std::string, ParameterPtr>> params_;
  std::map<std::string, size_t> index_;
};

/// Loads `loaded` (name -> array) into `params` (name -> parameter) with MXNet's checks; `file`
/// names the source in errors. Shared by ParameterDict::load and Block::load_parameters.
void load_into(const std::vector<std::pair<std::string, ParameterPtr>>& params,
               const std::vector<std::pair<std::string, NDArray>>& loaded, const std::string& file,
               const std::vector<Context>& ctx, bool allow_missing, bool ignore_extra, bool cast_dtype);

}  // namespace braid::gluon
