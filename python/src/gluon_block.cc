// gluon.Block, HybridBlock, SymbolBlock, Parameter and ParameterDict. Python subclasses of Block
// and HybridBlock override forward (or, through the Python HybridBlock, hybrid_forward); C++ calls
// them back for every non-cached call, so hybridize() traces a Python forward like a C++ one.
#include "bindings.h"
#include "braid/base/error.h"
#include "braid/base/grad_req.h"
#include "braid/gluon/block.h"
#include "braid/gluon/symbol_block.h"
#include "braid/gluon/symbolic_call.h"
#include "braid/gluon/tracing.h"
#include "braid/gluon/trainer.h"
#include "braid/symbol/symbol.h"

namespace braid::python {
namespace {

using gluon::Block;
using gluon::HybridBlock;
using gluon::Parameter;
using gluon::ParameterDict;
using gluon::ParameterPtr;

/// Appends the arrays of a forward's result (an NDArray, or lists and tuples of NDArrays and None,
/// nested) to `arrays`; returns its shape for regroup_outputs: 0 for an array, None for None, a
/// list or tuple of the items' shapes.
py::object flatten_outputs(py::handle out, std::vector<NDArray>& arrays, const std::string& block) {
  if (py::isinstance<NDArray>(out)) {
    arrays.push_back(out.cast<NDArray>());
    return py::int_(0);
  }
  if (out.is_none()) return py::none();
  const bool is_tuple = py::isinstance<py::tuple>(out);
  BRAID_CHECK(is_tuple || py::isinstance<py::list>(out), "block ", block,
              ": forward must return NDArrays (alone, or in lists and tuples), got ",
              py::str(py::type::of(out)).cast<std::string>());
  py::list items;
  for (auto item : out) items.append(flatten_outputs(item, arrays, block));
  return is_tuple ? py::object(py::tuple(items)) : py::object(items);
}

/// The outputs in the shape flatten_outputs recorded.
py::object regroup_outputs(py::handle format, const std::vector<NDArray>& arrays, size_t& next) {
  if (format.is_none()) return py::none();
  if (py::isinstance<py::int_>(format)) {
    BRAID_CHECK(next < arrays.size(), "the block gave ", arrays.size(), " outputs; its forward returned more");
    return py::cast(arrays[next++]);
  }
  py::list items;
  for (auto item : format) items.append(regroup_outputs(item, arrays, next));
  return py::isinstance<py::tuple>(format) ? py::object(py::tuple(items)) : py::object(items);
}

/// Calls the Python forward of `self` with the inputs unpacked; its result (an array or a
/// sequence of arrays) becomes the outputs. `B` must be the class the instance was bound as
/// (pybind11 finds the Python object by it).
template <class B>
std::vector<NDArray> python_forward(const B* self, const std::vector<NDArray>& inputs) {
  py::gil_scoped_acquire gil;
  py::function fn = py::get_override(self, "forward");
  BRAID_CHECK(fn, "block ", self->prefix(), " has no forward method; define forward(self, x, ...) in its class");
  const bool symbolic = gluon::symbolic::active();  // inside call_symbolic: the inputs are placeholders
  py::tuple args(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    args[i] = symbolic ? py::cast(gluon::symbolic::symbol_of(inputs[i])) : py::cast(inputs[i]);
  py::object out = fn(*args);
  if (symbolic) {
    std::vector<NDArray> placeholders;
    auto add = [&](py::handle s) {
      BRAID_CHECK(py::isinstance<Symbol>(s), "block ", self->prefix(),
                  ": forward called on Symbols must return Symbols");
      for (const auto& p : gluon::symbolic::placeholders_of(s.cast<Symbol>())) placeholders.push_back(p);
    };
    if (py::isinstance<Symbol>(out))
      add(out);
    else
      for (auto s : out) add(s);
    return placeholders;
  }
  std::vector<NDArray> arrays;
  py::object format = flatten_outputs(out, arrays, self->prefix());
  py::setattr(fn.attr("__self__"), "_out_format", format);  // call_block gives the outputs this shape
  return arrays;
}

template <class B>
std::string python_class_name(const B* self) {
  py::gil_scoped_acquire gil;
  py::function fn = py::get_override(self, "forward");  // bound to the instance
  return fn ? py::str(py::type::of(fn.attr("__self__")).attr("__name__")).cast<std::string>() : self->prefix();
}

/// The trampoline of Block or HybridBlock (`B`): C++ calls a Python subclass's forward.
template <class B>
class PyBlockOf : public B {
 public:
  using B::B;
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override { return python_forward<B>(this, inputs); }
  std::string describe() const override { return python_class_name<B>(this); }
};

/// `with block.name_scope():` — the scope lives from __enter__ to __exit__.
struct NameScopeGuard {
  explicit NameScopeGuard(Block* b) : block(b) {}
  Block* block;
  std::optional<gluon::NameScope> scope;
};

/// Keeps `child`'s Python object alive as long as `parent`'s: C++ holds only the C++ part of a
/// block defined in Python.
void keep_alive(py::handle parent, py::handle child) {
  py::object refs = py::getattr(parent, "_py_refs", py::none());
  if (refs.is_none()) {
    refs = py::list();
    py::setattr(parent, "_py_refs", refs);
  }
  refs.cast<py::list>().append(child);
}

bool is_cpp_forward(py::handle self) {
  py::object cpp_forward = py::module_::import("braid._core").attr("gluon").attr("Block").attr("forward");
  py::object forward = py::type::of(self).attr("forward");
  return forward.is(cpp_forward);
}

/// MXNet's SymbolBlock refuses row_sparse variables with an AssertionError.
void refuse_row_sparse_variables(const Symbol& out) {
  constexpr const char* kRowSparse = "1";  // MXNet's storage type id
  for (const auto& [name, attrs] : out.attr_dict()) {
    auto it = attrs.find("__storage_type__");
    if (it == attrs.end() || it->second != kRowSparse) continue;
    PyErr_SetString(
        PyExc_AssertionError,
        cat("SymbolBlock doesn't support Parameter '", name, "' because its storage type is 'row_sparse'.").c_str());
    throw py::error_already_set();
  }
}

py::object call_block(py::object self, py::args args) {
  auto& block = self.cast<Block&>();
  if (args.size() > 0 && py::isinstance<Symbol>(args[0]) && is_cpp_forward(self)) {
    // A layer called on Symbols builds its graph (MXNet's hybrid_forward with F = symbol).
    std::vector<Symbol> syms;
    for (auto a : args) {
      BRAID_CHECK(py::isinstance<Symbol>(a), "block ", block.prefix(), ": argument ", syms.size(), " is a ",
                  py::str(py::type::of(a).attr("__name__")).cast<std::string>(),
                  "; call it on Symbols only or on NDArrays only");
      syms.push_back(a.cast<Symbol>());
    }
    return py::cast(block.call_symbolic(syms));
  }
  std::vector<NDArray> inputs;
  for (auto a : args) {
    if (!py::isinstance<NDArray>(a)) {
      // Not traceable: a forward written in Python gets the arguments as they are; a C++ layer
      // takes arrays only.
      py::object cpp_forward = py::module_::import("braid._core").attr("gluon").attr("Block").attr("forward");
      py::object forward = py::type::of(self).attr("forward");
      BRAID_CHECK(!forward.is(cpp_forward), "block ", block.prefix(), " takes NDArrays; argument ", inputs.size(),
                  " is a ", py::str(py::type::of(a).attr("__name__")).cast<std::string>());
      return self.attr("forward")(*args);
    }
    inputs.push_back(a.cast<NDArray>());
  }
  std::vector<NDArray> out = block(inputs);
  // A forward written in Python (python_forward recorded the format): its outputs as it returned
  // them (lists and tuples, nested), also when the hybridized graph computed them.
  py::object format = py::getattr(self, "_out_format", py::none());
  if (!format.is_none()) {
    size_t next = 0;
    py::object grouped = regroup_outputs(format, out, next);
    if (next == out.size()) return grouped;
  }
  if (out.size() == 1) return py::cast(out[0]);
  return py::cast(out);
}

}  // namespace

void bind_gluon_block(py::module_& m) {
  auto g = m.def_submodule("gluon");
  g.def("_set_np_array", &gluon::set_np_array_interface, py::arg("active"));

  py::class_<Parameter, ParameterPtr>(g, "Parameter", py::dynamic_attr())  // stype, _trainer: Python
      .def(py::init([](const std::string& name, const std::string& grad_req, py::object shape, py::object dtype,
                       double lr_mult, double wd_mult, py::object init, bool allow_deferred_init) {
             auto p = std::make_shared<Parameter>(name, shape.is_none() ? Shape() : to_shape(shape),
                                                  dtype.is_none() ? DType::Float32 : to_dtype(dtype),
                                                  parse_grad_req(grad_req), init_of(init), allow_deferred_init);
             p->lr_mult = lr_mult;
             p->wd_mult = wd_mult;
             return p;
           }),
           py::arg("name"), py::arg("grad_req") = "write", py::arg("shape") = py::none(), py::arg("dtype") = py::none(),
           py::arg("lr_mult") = 1.0, py::arg("wd_mult") = 1.0, py::arg("init") = py::none(),
           py::arg("allow_deferred_init") = false)
      .def_property_readonly("name", &Parameter::name)
      .def_property(
          "shape",
          [](const Parameter& p) -> py::object {
            return p.shape().known() ? py::object(shape_tuple(p.shape())) : py::none();
          },
          [](Parameter& p, py::object s) { p.set_shape(to_shape(s)); })
      .def_property_readonly("dtype", [](const Parameter& p) { return dtype_type(p.dtype()); })
      .def_property(
          "grad_req", [](const Parameter& p) { return grad_req_name(p.grad_req()); },
          [](Parameter& p, const std::string& r) { p.set_grad_req(parse_grad_req(r)); })
      .def_property("_trainer", &Parameter::trainer, &Parameter::set_trainer)
      .def("_row_sparse_data", &Parameter::row_sparse_data)
      .def_property(
          "stype", [](const Parameter& p) { return storage_type_name(p.stype()); },
          [](Parameter& p, const std::string& s) { p.set_stype(parse_storage_type(s)); })
      .def_property(
          "grad_stype", [](const Parameter& p) { return storage_type_name(p.grad_stype()); },
          [](Parameter& p, const std::string& s) { p.set_grad_stype(parse_storage_type(s)); })
      .def_property(
          "init", [](const Parameter& p) { return std::const_pointer_cast<init::Initializer>(p.init()); },
          [](Parameter& p, std::shared_ptr<init::Initializer> i) { p.set_init(i); })
      .def_readwrite("lr_mult", &Parameter::lr_mult)
      .def_readwrite("wd_mult", &Parameter::wd_mult)
      .def(
          "initialize",
          [](Parameter& p, py::object init, py::object ctx, py::object default_init, bool force_reinit) {
            p.initialize(init_of(default_init), contexts(ctx), force_reinit, init_of(init));
          },
          py::arg("init") = py::none(), py::arg("ctx") = py::none(), py::arg("default_init") = py::none(),
          py::arg("force_reinit") = false, py::keep_alive<1, 2>(), py::keep_alive<1, 4>())
      .def(
          "data", [](const Parameter& p, py::object ctx) { return ctx.is_none() ? p.data() : p.data(to_context(ctx)); },
          py::arg("ctx") = py::none())
      .def("list_data", &Parameter::list_data)
      .def(
          "grad", [](const Parameter& p, py::object ctx) { return ctx.is_none() ? p.grad() : p.grad(to_context(ctx)); },
          py::arg("ctx") = py::none())
      .def("list_grad", &Parameter::list_grad)
      .def("list_ctx", &Parameter::list_ctx)
      .def("zero_grad", &Parameter::zero_grad)
      .def("set_data", &Parameter::set_data)
      .def("reset_ctx", [](Parameter& p, py::object ctx) { p.reset_ctx(contexts(ctx)); })
      .def("cast", [](Parameter& p, py::object dtype) { p.cast(to_dtype(dtype)); })
      .def("_reduce", &Parameter::reduce)
      .def_property_readonly("_deferred", &Parameter::deferred)
      .def_property_readonly("_np_arrays", &Parameter::np_arrays)
      .def("_finish_deferred_init", [](Parameter& p, py::object shape) { p.finish_deferred_init(to_shape(shape)); })
      .def("__repr__", [](const Parameter& p) {
        return "Parameter " + p.name() + " (shape=" + (p.shape().known() ? p.shape().str() : "None") +
               ", dtype=" + dtype_name(p.dtype()) + ")";
      });

  py::class_<ParameterDict>(g, "ParameterDict")
      .def(py::init<std::string>(), py::arg("prefix") = "")
      .def_property_readonly("prefix", &ParameterDict::prefix)
      .def(
          "get",
          [](ParameterDict& d, const std::string& name, py::object shape, py::object dtype, const std::string& grad_req,
             py::object init, bool allow_deferred_init, py::object lr_mult, py::object wd_mult) {
            ParameterPtr p = d.get(name, shape.is_none() ? Shape() : to_shape(shape),
                                   dtype.is_none() ? DType::Float32 : to_dtype(dtype), parse_grad_req(grad_req),
                                   init_of(init), allow_deferred_init);
            if (!lr_mult.is_none()) p->lr_mult = lr_mult.cast<double>();
            if (!wd_mult.is_none()) p->wd_mult = wd_mult.cast<double>();
            return p;
          },
          py::arg("name"), py::arg("shape") = py::none(), py::arg("dtype") = py::none(), py::arg("grad_req") = "write",
          py::arg("init") = py::none(), py::arg("allow_deferred_init") = true, py::arg("lr_mult") = py::none(),
          py::arg("wd_mult") = py::none())
      .def("update", &ParameterDict::update)
      .def("_add", &ParameterDict::add)
      .def("keys", &ParameterDict::keys)
      .def("values",
           [](const ParameterDict& d) {
             std::vector<ParameterPtr> v;
             for (const auto& [n, p] : d) v.push_back(p);
             return v;
           })
      .def("items",
           [](const ParameterDict& d) {
             std::vector<std::pair<std::string, ParameterPtr>> v(d.begin(), d.end());
             return v;
           })
      .def("__getitem__", &ParameterDict::operator[])
      .def("__contains__", &ParameterDict::contains)
      .def("__len__", &ParameterDict::size)
      .def("__iter__", [](const ParameterDict& d) { return py::iter(py::cast(d.keys())); })
      .def("select", &ParameterDict::select)
      .def(
          "initialize",
          [](ParameterDict& d, py::object init, py::object ctx, bool verbose, bool force_reinit) {
            d.initialize(init_of(init), contexts(ctx), force_reinit);
          },
          py::arg("init") = py::none(), py::arg("ctx") = py::none(), py::arg("verbose") = false,
          py::arg("force_reinit") = false, py::keep_alive<1, 2>())  // an initializer defined in Python
      .def("zero_grad", &ParameterDict::zero_grad)
      .def("reset_ctx", [](ParameterDict& d, py::object ctx) { d.reset_ctx(contexts(ctx)); })
      .def("setattr",
           [](ParameterDict& d, const std::string& name, py::object value) {
             if (name == "grad_req")
               d.set_grad_req(parse_grad_req(value.cast<std::string>()));
             else if (name == "lr_mult")
               d.set_lr_mult(value.cast<double>());
             else if (name == "wd_mult")
               d.set_wd_mult(value.cast<double>());
             else
               throw Error("ParameterDict.setattr: '" + name + "' is not supported; use grad_req, lr_mult or wd_mult");
           })
      .def("save", &ParameterDict::save, py::arg("filename"), py::arg("strip_prefix") = "")
      .def(
          "load",
          [](ParameterDict& d, const std::string& f, py::object ctx, bool allow_missing, bool ignore_extra,
             const std::string& restore_prefix,
             bool cast_dtype) { d.load(f, contexts(ctx), allow_missing, ignore_extra, restore_prefix, cast_dtype); },
          py::arg("filename"), py::arg("ctx") = py::none(), py::arg("allow_missing") = false,
          py::arg("ignore_extra") = false, py::arg("restore_prefix") = "", py::arg("cast_dtype") = false)
      .def("__repr__", [](const ParameterDict& d) {
        std::string s = "(\n";
        for (const auto& [n, p] : d)
          s += "  Parameter " + n + " (shape=" + p->shape().str() + ", dtype=" + dtype_name(p->dtype()) + ")\n";
        return s + ")";
      });

  g.def("_share_parameters", [](py::object params) { return sharing(params); });
  g.def("_tracing", &gluon::tracing);
  g.def("_trace_cannot_replay", &gluon::trace_cannot_replay);
  py::class_<gluon::ShareParameters>(g, "_ShareParameters");
  py::class_<NameScopeGuard>(g, "_NameScope")
      .def("__enter__", [](NameScopeGuard& s) { s.scope.emplace(*s.block); })
      .def("__exit__", [](NameScopeGuard& s, py::args) { s.scope.reset(); });

  py::class_<Block, PyBlockOf<Block>, std::shared_ptr<Block>>(g, "Block", py::dynamic_attr())
      .def(py::init<const std::string&, std::optional<std::string>>(), py::arg("hint") = "block",
           py::arg("prefix") = py::none())
      .def_property_readonly("prefix", &Block::prefix)
      .def_property_readonly("name", &Block::name)
      .def_property_readonly("params", py::overload_cast<>(&Block::params), py::return_value_policy::reference_internal)
      .def(
          "name_scope", [](Block& b) { return std::make_unique<NameScopeGuard>(&b); }, py::keep_alive<0, 1>())
      .def(
          "register_child",
          [](py::object self, py::object child, py::object name) {
            auto ptr = child.cast<std::shared_ptr<Block>>();
            self.cast<Block&>().register_child(ptr, name.is_none() ? "" : name.cast<std::string>());
            keep_alive(self, child);
            return child;
          },
          py::arg("block"), py::arg("name") = py::none())
      .def("_register_attribute", &Block::register_attribute)
      .def("_attribute_params",
           [](const Block& b) {
             py::dict d;
             for (const auto& [n, p] : b.attribute_params()) d[py::str(n)] = p;
             return d;
           })
      .def_property_readonly("_children",
                             [](const Block& b) {
                               py::dict d;
                               for (const auto& [n, c] : b.children()) d[py::str(n)] = c;
                               return d;
                             })
      .def("collect_params", &Block::collect_params, py::arg("select") = "")
      .def("_collect_params_with_prefix", &Block::collect_params_with_prefix, py::arg("prefix") = "")
      .def(
          "initialize",
          [](Block& b, py::object init, py::object ctx, bool verbose, bool force_reinit) {
            b.initialize(init_of(init), contexts(ctx), force_reinit);
          },
          py::arg("init") = py::none(), py::arg("ctx") = py::none(), py::arg("verbose") = false,
          py::arg("force_reinit") = false, py::keep_alive<1, 2>())  // an initializer defined in Python
      .def("save_parameters", &Block::save_parameters, py::arg("filename"))
      .def(
          "load_parameters",
          [](Block& b, const std::string& f, py::object ctx, bool allow_missing, bool ignore_extra, bool cast_dtype) {
            b.load_parameters(f, contexts(ctx), allow_missing, ignore_extra, cast_dtype);
          },
          py::arg("filename"), py::arg("ctx") = py::none(), py::arg("allow_missing") = false,
          py::arg("ignore_extra") = false, py::arg("cast_dtype") = false)
      .def("hybridize", &Block::hybridize, py::arg("active") = true, py::arg("static_alloc") = false,
           py::arg("static_shape") = false)
      .def(
          "register_op_hook",
          [](Block& b, py::object callback, bool monitor_all) {
            if (callback.is_none()) return b.register_op_hook(nullptr, monitor_all);
            std::shared_ptr<py::object> fn = held_with_gil(std::move(callback));
            // MXNet hands the names over as bytes (its ctypes callback's char pointers).
            b.register_op_hook(
                [fn](const std::string& name, const std::string& op, const NDArray& array) {
                  py::gil_scoped_acquire gil;
                  (*fn)(py::bytes(name), py::bytes(op), array);
                },
                monitor_all);
          },
          py::arg("callback"), py::arg("monitor_all") = false)
      .def("_install_python_hooks",
           [](Block& b) {
             // The hooks themselves stay in the block's Python __dict__ (gluon/block.py), so that
             // their handles detach them there; C++ calls fire them wherever the block is called.
             // `outputs` null: before the call.
             auto fire = [](Block& block, const std::vector<NDArray>& inputs, const std::vector<NDArray>* outputs) {
               py::gil_scoped_acquire gil;
               py::object out = !outputs               ? py::none()
                                : outputs->size() == 1 ? py::cast((*outputs)[0])
                                                       : py::cast(*outputs);
               py::module_::import("braid.gluon.block")
                   .attr("_fire_forward_hooks")(py::cast(&block, py::return_value_policy::reference),
                                                py::tuple(py::cast(inputs)), out, outputs != nullptr);
             };
             b.add_forward_pre_hook(
                 [fire](Block& block, const std::vector<NDArray>& inputs) { fire(block, inputs, nullptr); });
             b.add_forward_hook([fire](Block& block, const std::vector<NDArray>& inputs,
                                       const std::vector<NDArray>& outputs) { fire(block, inputs, &outputs); });
           })
      .def("cast", [](Block& b, py::object dtype) { b.cast(to_dtype(dtype)); })
      .def("apply",
           [](py::object self, py::function fn) {
             self.cast<Block&>().apply([&](Block& b) { fn(py::cast(&b, py::return_value_policy::reference)); });
             return self;
           })
      .def("__call__", &call_block)
      .def("forward",
           [](Block& b, py::args args) { return call_block(py::cast(&b, py::return_value_policy::reference), args); })
      .def("__repr__", &Block::repr);

  py::class_<HybridBlock, Block, PyBlockOf<HybridBlock>, std::shared_ptr<HybridBlock>>(g, "HybridBlock",
                                                                                       py::dynamic_attr())
      .def(py::init<const std::string&, std::optional<std::string>>(), py::arg("hint") = "hybridblock",
           py::arg("prefix") = py::none())
      .def("export", &HybridBlock::export_model, py::arg("path"), py::arg("epoch") = 0)
      .def("_traced_symbol", &HybridBlock::traced_symbol)
      .def_property_readonly("_hybridized", &HybridBlock::hybridized);

  py::class_<gluon::SymbolBlock, HybridBlock, std::shared_ptr<gluon::SymbolBlock>>(g, "SymbolBlock")
      .def(py::init([](py::object outputs, py::object inputs, py::object params) {
             Symbol out = py::isinstance<Symbol>(outputs) ? outputs.cast<Symbol>()
                                                          : Symbol::Group(outputs.cast<std::vector<Symbol>>());
             refuse_row_sparse_variables(out);
             std::vector<std::string> names;
             if (py::isinstance<Symbol>(inputs))
               names.push_back(inputs.cast<Symbol>().name());
             else
               for (auto i : inputs) names.push_back(i.cast<Symbol>().name());
             return std::make_shared<gluon::SymbolBlock>(
                 out, names, params.is_none() ? ParameterDict() : params.cast<ParameterDict>());
           }),
           py::arg("outputs"), py::arg("inputs"), py::arg("params") = py::none())
      .def_static(
          "imports",
          [](const std::string& symbol_file, py::object input_names, py::object param_file, py::object ctx) {
            std::vector<std::string> names;
            if (py::isinstance<py::str>(input_names))
              names.push_back(input_names.cast<std::string>());
            else
              names = input_names.cast<std::vector<std::string>>();
            return gluon::SymbolBlock::imports(
                symbol_file, names, param_file.is_none() ? "" : param_file.cast<std::string>(), contexts(ctx));
          },
          py::arg("symbol_file"), py::arg("input_names"), py::arg("param_file") = py::none(),
          py::arg("ctx") = py::none());
}

}  // namespace braid::python
