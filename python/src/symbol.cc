// mx.sym: Symbol (variables, every registered operator, arithmetic, shape inference, JSON) and
// the Executor of bind / simple_bind.
#include <pybind11/operators.h>

#include "bindings.h"
#include "braid/base/error.h"
#include "braid/op/registry.h"
#include "braid/symbol/cached_op.h"
#include "braid/symbol/compose.h"
#include "braid/symbol/executor.h"
#include "braid/symbol/subgraph.h"
#include "braid/symbol/symbol.h"

namespace braid::python {
namespace {

/// Shapes as inference left them: None where even the rank is unknown, else a tuple with 0 for
/// each unknown dimension (braid.symbol spells them as MXNet's current shape mode wants).
py::list shape_list(const std::vector<Shape>& shapes) {
  py::list l;
  for (const auto& s : shapes) l.append(s.known() ? py::object(shape_tuple(s)) : py::object(py::none()));
  return l;
}

py::list type_list(const std::vector<DType>& types) {
  py::list l;
  for (DType t : types) l.append(t == kDTypeUnknown ? py::object(py::none()) : dtype_type(t));
  return l;
}

/// Arrays given as a list (in `names` order) or a dict by name; missing names stay None.
std::vector<NDArray> arrays_in_order(py::handle given, const std::vector<std::string>& names, const char* what,
                                     bool required) {
  std::vector<NDArray> out(names.size());
  if (given.is_none()) return out;
  if (py::isinstance<py::dict>(given)) {
    auto d = py::reinterpret_borrow<py::dict>(given);
    for (size_t i = 0; i < names.size(); ++i) {
      if (d.contains(names[i]))
        out[i] = d[py::str(names[i])].cast<NDArray>();
      else
        BRAID_CHECK(!required, "bind: ", what, " has no array for '", names[i], "'");
    }
    return out;
  }
  auto list = given.cast<std::vector<NDArray>>();
  BRAID_CHECK(list.size() == names.size(), "bind: ", what, " has ", list.size(), " arrays but the symbol has ",
              names.size(), " (", py::str(py::cast(names)).cast<std::string>(), ")");
  return list;
}

std::vector<GradReq> grad_reqs(py::handle req, const std::vector<std::string>& names) {
  if (py::isinstance<py::str>(req)) return std::vector<GradReq>(names.size(), parse_grad_req(req.cast<std::string>()));
  std::vector<GradReq> out(names.size(), GradReq::Write);
  if (py::isinstance<py::dict>(req)) {
    auto d = py::reinterpret_borrow<py::dict>(req);
    for (size_t i = 0; i < names.size(); ++i)
      out[i] = d.contains(names[i]) ? parse_grad_req(d[py::str(names[i])].cast<std::string>()) : GradReq::Null;
    return out;
  }
  auto list = req.cast<std::vector<std::string>>();
  BRAID_CHECK(list.size() == names.size(), "bind: grad_req has ", list.size(), " entries for ", names.size(),
              " arguments");
  for (size_t i = 0; i < list.size(); ++i) out[i] = parse_grad_req(list[i]);
  return out;
}

std::map<std::string, Context> group_contexts(py::handle group2ctx) {
  std::map<std::string, Context> out;
  if (group2ctx.is_none()) return out;
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(group2ctx)) out[k.cast<std::string>()] = to_context(v);
  return out;
}

/// Keywords given None: an input left out, or an attribute MXNet passes on as "None" (sort's
/// axis=None flattens, where leaving the attribute out sorts the last axis). A None the operator
/// does not take as an attribute is an input left out.
void pass_on_none(const std::string& op, const std::vector<std::string>& keys, op::AttrMap& attrs) {
  if (keys.empty()) return;
  const op::OpDef& def = op::Registry::get().find(op);
  op::AttrMap own;
  for (const auto& [k, v] : attrs)
    if (k.rfind("__", 0) != 0) own[k] = v;
  for (const auto& key : keys) {
    own[key] = "None";
    try {
      def.parse(own);
      attrs[key] = "None";
    } catch (const Error&) {
      own.erase(key);
    }
  }
}

/// sym.<Op>(*symbols, name=..., **attributes_and_named_inputs).
Symbol make_symbol(const std::string& op, const py::list& args, const py::dict& kwargs) {
  sym::NamedInputs inputs;
  op::AttrMap attrs;
  std::string name;
  std::vector<std::string> none_keys;
  for (auto a : args) {
    BRAID_CHECK(py::isinstance<Symbol>(a), "sym.", op, ": positional argument ", inputs.size(),
                " must be a Symbol; give attributes by keyword");
    inputs.emplace_back("", a.cast<Symbol>());
  }
  for (auto [k, v] : kwargs) {
    std::string key = k.cast<std::string>();
    if (key == "name") {
      if (!v.is_none()) name = v.cast<std::string>();
    } else if (key == "attr") {
      if (!v.is_none())
        for (auto [ak, av] : v.cast<py::dict>()) attrs[ak.cast<std::string>()] = av.cast<std::string>();
    } else if (py::isinstance<Symbol>(v)) {
      inputs.emplace_back(key, v.cast<Symbol>());
    } else if (v.is_none()) {
      none_keys.push_back(key);
    } else {
      attrs[key] = attr_string(v);
    }
  }
  pass_on_none(op, none_keys, attrs);
  // MXNet composes an operator without inputs (_random_normal) ignoring keyword Symbols given to it.
  if (args.empty() && !inputs.empty()) {
    const op::OpDef& def = op::Registry::get().find(op);
    op::AttrMap own;
    for (const auto& [k, v] : attrs)
      if (k.rfind("__", 0) != 0) own[k] = v;
    if (def.list_arguments(def.parse(own)).empty()) inputs.clear();
  }
  return sym::make(op, inputs, attrs, name);
}

/// The shapes given by keyword; as MXNet, values that are not tuples (or lists) are ignored.
std::map<std::string, Shape> shapes_of(const py::kwargs& kwargs) {
  std::map<std::string, Shape> known;
  for (auto [k, v] : kwargs)
    if (py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v)) known[k.cast<std::string>()] = to_shape(v);
  return known;
}

py::object infer_result(const InferResult<Shape>& r) {
  return py::make_tuple(shape_list(r.arg), shape_list(r.out), shape_list(r.aux));
}

py::dict array_dict(const std::map<std::string, NDArray>& m) {
  py::dict d;
  for (const auto& [k, v] : m) d[py::str(k)] = v;
  return d;
}

}  // namespace

std::shared_ptr<py::object> held_with_gil(py::object fn) {
  return std::shared_ptr<py::object>(new py::object(std::move(fn)), [](py::object* f) {
    if (!Py_IsInitialized()) return;  // dropped by a static object after the interpreter ended: let it go
    py::gil_scoped_acquire gil;
    delete f;
  });
}

void bind_symbol(py::module_& m) {
  auto s = m.def_submodule("symbol");
  py::class_<Symbol>(s, "Symbol")
      .def_property_readonly("name",
                             [](const Symbol& x) -> py::object {
                               return x.num_outputs() == 1 ? py::object(py::str(x.name())) : py::object(py::none());
                             })
      .def("list_arguments", &Symbol::list_arguments)
      .def("list_outputs", &Symbol::list_outputs)
      .def("list_auxiliary_states", &Symbol::list_auxiliary_states)
      .def("list_inputs", &Symbol::list_inputs)
      .def("get_internals", &Symbol::get_internals)
      .def("get_children",
           [](const Symbol& x) -> py::object {
             Symbol c = x.get_children();
             return c.empty() ? py::object(py::none()) : py::cast(c);
           })
      .def("__getitem__",
           [](const Symbol& x, py::object i) {
             if (py::isinstance<py::str>(i)) return x[i.cast<std::string>()];
             int64_t n = static_cast<int64_t>(x.num_outputs()), k = i.cast<int64_t>();
             BRAID_CHECK(k >= -n && k < n, "symbol output index ", k, " is out of range for ", n, " outputs");
             return x[static_cast<size_t>(k < 0 ? k + n : k)];
           })
      .def("__len__", &Symbol::num_outputs)
      .def("__iter__",
           [](const Symbol& x) {
             std::vector<Symbol> outs;
             for (size_t i = 0; i < x.num_outputs(); ++i) outs.push_back(x[i]);
             return py::iter(py::cast(outs));
           })
      .def("_attr", &Symbol::attr)
      .def("_list_attr", &Symbol::list_attr)
      .def("_attr_dict", &Symbol::attr_dict)
      .def("_set_attr",
           [](Symbol& x, py::kwargs kw) {
             for (auto [k, v] : kw) x.set_attr(k.cast<std::string>(), v.cast<std::string>());
           })
      .def("_infer_shape_partial",
           [](const Symbol& x, py::kwargs kw) { return infer_result(x.infer_shape_partial(shapes_of(kw))); })
      .def("_compose", [](const Symbol& x, std::vector<Symbol> args, std::map<std::string, Symbol> kwargs,
                          const std::string& name) { return x.compose(args, kwargs, name); })
      .def(py::pickle([](const Symbol& x) { return x.tojson(false); },
                      [](const std::string& json) { return Symbol::fromjson(json); }))
      .def("_infer_type",
           [](const Symbol& x, py::kwargs kw) {
             std::map<std::string, DType> known;
             for (auto [k, v] : kw)
               if (!v.is_none()) known[k.cast<std::string>()] = to_dtype(v);
             auto r = x.infer_type(known);
             return py::make_tuple(type_list(r.arg), type_list(r.out), type_list(r.aux));
           })
      .def("_tojson", &Symbol::tojson, py::arg("np_shape") = false)
      .def(
          "_save", [](const Symbol& x, const std::string& f, bool np_shape) { x.save(f, np_shape); }, py::arg("fname"),
          py::arg("np_shape") = false)
      .def(
          "bind",
          [](const Symbol& x, py::object ctx, py::object args, py::object args_grad, py::object grad_req,
             py::object aux_states, py::object group2ctx, py::object shared_exec) {
            BRAID_CHECK(shared_exec.is_none(), "bind(shared_exec=...) is not supported by Braid");
            auto names = x.list_arguments();
            auto arg_arrays = arrays_in_order(args, names, "args", true);
            auto grads = arrays_in_order(args_grad, names, "args_grad", false);
            std::vector<GradReq> reqs = grad_reqs(grad_req, names);
            if (args_grad.is_none()) reqs.assign(names.size(), GradReq::Null);
            auto aux = arrays_in_order(aux_states, x.list_auxiliary_states(), "aux_states", true);
            return std::make_shared<Executor>(Executor::bind(x, to_context(ctx), arg_arrays,
                                                             args_grad.is_none() ? std::vector<NDArray>{} : grads, reqs,
                                                             aux, group_contexts(group2ctx)));
          },
          py::arg("ctx"), py::arg("args"), py::arg("args_grad") = py::none(), py::arg("grad_req") = "write",
          py::arg("aux_states") = py::none(), py::arg("group2ctx") = py::none(), py::arg("shared_exec") = py::none())
      .def(
          "simple_bind",
          [](const Symbol& x, py::object ctx, py::object grad_req, py::object type_dict, py::object stype_dict,
             py::object group2ctx, py::object shared_arg_names, py::object shared_exec, py::object shared_buffer,
             py::kwargs kw) {
            BRAID_CHECK(shared_exec.is_none() && shared_buffer.is_none(),
                        "simple_bind(shared_exec/shared_buffer=...) is not supported by Braid");
            std::map<std::string, DType> types;
            if (!type_dict.is_none())
              for (auto [k, v] : type_dict.cast<py::dict>()) types[k.cast<std::string>()] = to_dtype(v);
            std::vector<std::string> no_grad;
            GradReq req = GradReq::Write;
            if (py::isinstance<py::str>(grad_req)) {
              req = parse_grad_req(grad_req.cast<std::string>());
            } else {
              auto names = x.list_arguments();
              auto reqs = grad_reqs(grad_req, names);
              for (size_t i = 0; i < names.size(); ++i)
                if (reqs[i] == GradReq::Null) no_grad.push_back(names[i]);
            }
            std::map<std::string, StorageType> stypes;
            if (!stype_dict.is_none())
              for (auto [k, v] : stype_dict.cast<py::dict>())
                stypes[k.cast<std::string>()] = parse_storage_type(v.cast<std::string>());
            return std::make_shared<Executor>(Executor::simple_bind(x, to_context(ctx), shapes_of(kw), req, types,
                                                                    no_grad, group_contexts(group2ctx), {}, stypes));
          },
          py::arg("ctx"), py::arg("grad_req") = "write", py::arg("type_dict") = py::none(),
          py::arg("stype_dict") = py::none(), py::arg("group2ctx") = py::none(),
          py::arg("shared_arg_names") = py::none(), py::arg("shared_exec") = py::none(),
          py::arg("shared_buffer") = py::none())
      .def(py::self + py::self)
      .def(py::self - py::self)
      .def(py::self * py::self)
      .def(py::self / py::self)
      .def(py::self + double())
      .def(py::self - double())
      .def(py::self * double())
      .def(py::self / double())
      .def(double() + py::self)
      .def(double() - py::self)
      .def(double() * py::self)
      .def(double() / py::self)
      .def("__repr__", [](const Symbol& x) {
        return x.num_outputs() == 1 ? "<Symbol " + x.name() + ">" : std::string("<Symbol group>");
      });
  s.def(
      "Variable",
      [](const std::string& name, py::object attr, py::object shape, py::object lr_mult, py::object wd_mult,
         py::object dtype, py::object init, py::object stype) {
        VariableOptions o;
        if (!shape.is_none()) o.shape = to_shape(shape);
        if (!dtype.is_none()) o.dtype = to_dtype(dtype);
        if (!lr_mult.is_none()) o.lr_mult = lr_mult.cast<double>();
        if (!wd_mult.is_none()) o.wd_mult = wd_mult.cast<double>();
        if (!init.is_none())
          o.init = py::isinstance<py::str>(init) ? init.cast<std::string>() : py::repr(init).cast<std::string>();
        op::AttrMap attrs;
        if (!attr.is_none())
          for (auto [k, v] : attr.cast<py::dict>()) attrs[k.cast<std::string>()] = v.cast<std::string>();
        return Symbol::Variable(name, attrs, o);
      },
      py::arg("name"), py::arg("attr") = py::none(), py::arg("shape") = py::none(), py::arg("lr_mult") = py::none(),
      py::arg("wd_mult") = py::none(), py::arg("dtype") = py::none(), py::arg("init") = py::none(),
      py::arg("stype") = py::none());
  s.def("Group", &Symbol::Group);
  s.def("load", &Symbol::load);
  s.def("load_json", &Symbol::fromjson);
  s.def("make", &make_symbol);
  // The body of a control-flow operator: (graph, [(cut variable name, outside symbol), ...]).
  s.def("cut_subgraph", [](const Symbol& graph, const std::string& scope) {
    braid::symbol::CutSubgraph c = braid::symbol::cut_subgraph(graph, scope);
    return py::make_tuple(c.graph, c.cut);
  });

  py::class_<Executor, std::shared_ptr<Executor>>(s, "Executor")
      .def(
          "forward",
          [](Executor& e, bool is_train, py::kwargs kw) {
            std::map<std::string, NDArray> inputs;
            for (auto [k, v] : kw)
              inputs[k.cast<std::string>()] =
                  py::isinstance<NDArray>(v) ? v.cast<NDArray>() : from_numpy(v, std::nullopt, std::nullopt);
            {
              py::gil_scoped_release release;
              e.forward(is_train, inputs);
            }
            return e.outputs();
          },
          py::arg("is_train") = false)
      .def(
          "backward",
          [](Executor& e, py::object out_grads, bool) {
            std::vector<NDArray> g;
            if (py::isinstance<NDArray>(out_grads))
              g.push_back(out_grads.cast<NDArray>());
            else if (!out_grads.is_none())
              g = out_grads.cast<std::vector<NDArray>>();
            py::gil_scoped_release release;
            e.backward(g);
          },
          py::arg("out_grads") = py::none(), py::arg("is_train") = true)
      .def_property_readonly("outputs", &Executor::outputs)
      .def_property_readonly("arg_arrays", &Executor::arg_arrays)
      .def_property_readonly("grad_arrays",
                             [](const Executor& e) {
                               py::list l;
                               for (const auto& g : e.grad_arrays())
                                 l.append(g.is_none() ? py::object(py::none()) : py::cast(g));
                               return l;
                             })
      .def_property_readonly("aux_arrays", &Executor::aux_arrays)
      .def_property_readonly("_ctx", &Executor::context)
      .def_property_readonly("arg_dict", [](const Executor& e) { return array_dict(e.arg_dict()); })
      .def_property_readonly("grad_dict", [](const Executor& e) { return array_dict(e.grad_dict()); })
      .def_property_readonly("aux_dict", [](const Executor& e) { return array_dict(e.aux_dict()); })
      .def_property_readonly("output_dict", [](const Executor& e) { return array_dict(e.output_dict()); })
      .def(
          "reshape",
          [](const Executor& e, bool partial_shaping, bool allow_up_sizing, py::kwargs kw) {
            return std::make_shared<Executor>(e.reshape(shapes_of(kw), partial_shaping, allow_up_sizing));
          },
          py::arg("partial_shaping") = false, py::arg("allow_up_sizing") = false)
      .def(
          "copy_params_from",
          [](Executor& e, py::dict arg_params, py::object aux_params, bool allow_extra_params) {
            auto args = e.arg_dict(), aux = e.aux_dict();
            auto copy = [&](py::dict given, std::map<std::string, NDArray>& into, const char* what) {
              for (auto [k, v] : given) {
                auto it = into.find(k.cast<std::string>());
                if (it == into.end()) {
                  BRAID_CHECK(allow_extra_params, "copy_params_from: the executor has no ", what, " '",
                              k.cast<std::string>(), "' (allow_extra_params=True ignores it)");
                  continue;
                }
                v.cast<NDArray>().copyto(it->second);
              }
            };
            copy(arg_params, args, "argument");
            if (!aux_params.is_none()) copy(aux_params.cast<py::dict>(), aux, "auxiliary state");
          },
          py::arg("arg_params"), py::arg("aux_params") = py::none(), py::arg("allow_extra_params") = false)
      .def("debug_str", &Executor::debug_str)
      .def_property_readonly("_symbol", &Executor::symbol)
      .def("get_optimized_symbol", &Executor::optimized_symbol, "The graph that runs, after the executor's passes.")
      .def(
          "set_monitor_callback",
          [](Executor& e, py::object callback, bool monitor_all) {
            if (callback.is_none()) return e.set_monitor_callback(nullptr, monitor_all);
            // Called from forward and backward, which run without the GIL.
            std::shared_ptr<py::object> fn = held_with_gil(std::move(callback));
            e.set_monitor_callback(
                [fn](const std::string& name, const std::string&, const NDArray& array) {
                  py::gil_scoped_acquire gil;
                  (*fn)(name, array);
                },
                monitor_all);
          },
          py::arg("callback"), py::arg("monitor_all") = false);

  // mx.nd.CachedOp (python/braid/ndarray/cached_op.py orders the inputs).
  py::class_<symbol::CachedOp, std::shared_ptr<symbol::CachedOp>>(s, "CachedOp")
      .def(py::init([](const Symbol& sym, bool static_alloc) {
             return std::make_shared<symbol::CachedOp>(sym, static_alloc);
           }),
           py::arg("symbol"), py::arg("static_alloc") = false)
      .def("__call__", [](symbol::CachedOp& op, const std::vector<NDArray>& args, const std::vector<NDArray>& aux) {
        return op(args, aux);
      });
}

}  // namespace braid::python
