// mx.kv: KVStore of every type (local, device, dist_*, horovod), the parameter server's roles,
// and the Horovod-style collectives (braid.horovod).
#include <algorithm>

#include "bindings.h"
#include "braid/base/error.h"
#include "braid/gluon/distributed_trainer.h"
#include "braid/kvstore/collective.h"
#include "braid/kvstore/kvstore.h"
#include "braid/kvstore/ps.h"
#include "braid/optim/optimizer.h"

namespace braid::python {
namespace {

kv::Key key_of(py::handle k) {
  if (py::isinstance<py::str>(k)) return k.cast<std::string>();
  return k.cast<int>();
}

std::vector<NDArray> array_list(py::handle v) {
  if (py::isinstance<NDArray>(v)) return {v.cast<NDArray>()};
  return v.cast<std::vector<NDArray>>();
}

/// Calls fn(key, arrays) for one key or for each of a list of keys (values then per key).
template <class F>
void for_each_key(py::handle key, py::handle value, F fn) {
  if (py::isinstance<py::list>(key) || py::isinstance<py::tuple>(key)) {
    auto keys = py::reinterpret_borrow<py::sequence>(key);
    auto values = py::reinterpret_borrow<py::sequence>(value);
    BRAID_CHECK(keys.size() == values.size(), "kvstore: ", keys.size(), " keys but ", values.size(), " values");
    for (size_t i = 0; i < keys.size(); ++i) fn(key_of(keys[i]), array_list(values[i]));
    return;
  }
  fn(key_of(key), array_list(value));
}

/// Calls fn(key, value, out) for one key, or for each of a list of keys with the value and the
/// out at its position (pushpull, broadcast).
template <class F>
void for_each_key_and_out(py::handle key, py::handle value, py::handle out, F fn) {
  if (!py::isinstance<py::list>(key) && !py::isinstance<py::tuple>(key)) {
    fn(key_of(key), value, out);
    return;
  }
  auto keys = py::reinterpret_borrow<py::sequence>(key);
  auto values = py::reinterpret_borrow<py::sequence>(value), outs = py::reinterpret_borrow<py::sequence>(out);
  BRAID_CHECK(keys.size() == values.size() && keys.size() == outs.size(), "kvstore: ", keys.size(), " keys but ",
              values.size(), " values and ", outs.size(), " outputs; give one of each per key");
  for (size_t i = 0; i < keys.size(); ++i) fn(key_of(keys[i]), values[i], outs[i]);
}

// A server of a job started from a Python script rebuilds the workers' Python optimizers from
// their pickles (braid.optimizer.optimizer._from_server_image). The optimizer keeps its Python
// object alive, and lets it go under the GIL.
std::shared_ptr<optim::Optimizer> load_python_optimizer(const std::string& image) {
  py::gil_scoped_acquire gil;
  py::object optimizer = py::module_::import("braid.optimizer.optimizer").attr("_from_server_image")(py::bytes(image));
  auto* core = optimizer.cast<optim::Optimizer*>();
  auto* keep = new py::object(std::move(optimizer));
  return std::shared_ptr<optim::Optimizer>(core, [keep](optim::Optimizer*) {
    py::gil_scoped_acquire again;
    delete keep;
  });
}

}  // namespace

void bind_kvstore(py::module_& m) {
  kv::set_optimizer_loader(load_python_optimizer);
  auto k = m.def_submodule("kvstore");
  py::class_<kv::KVStore, std::shared_ptr<kv::KVStore>>(k, "KVStore")
      .def_property_readonly("type", &kv::KVStore::type)
      .def_property_readonly("rank", &kv::KVStore::rank)
      .def_property_readonly("num_workers", &kv::KVStore::num_workers)
      .def("is_capable", &kv::KVStore::is_capable)
      .def("barrier", &kv::KVStore::barrier, py::call_guard<py::gil_scoped_release>())
      .def("init",
           [](kv::KVStore& s, py::object key, py::object value) {
             std::vector<kv::Key> keys;
             std::vector<NDArray> values;
             for_each_key(key, value, [&](const kv::Key& kk, const std::vector<NDArray>& v) {
               BRAID_CHECK(v.size() == 1, "kvstore.init: one array per key, got ", v.size());
               keys.push_back(kk);
               values.push_back(v[0]);
             });
             py::gil_scoped_release waiting_for_the_servers;
             s.init(keys, values);
           })
      .def(
          "push",
          [](kv::KVStore& s, py::object key, py::object value, int priority) {
            for_each_key(key, value,
                         [&](const kv::Key& kk, const std::vector<NDArray>& v) { s.push(kk, v, priority); });
          },
          py::arg("key"), py::arg("value"), py::arg("priority") = 0)
      .def(
          "pull",
          [](kv::KVStore& s, py::object key, py::object out, int priority, bool ignore_sparse) {
            for_each_key(key, out, [&](const kv::Key& kk, std::vector<NDArray> o) {
              if (ignore_sparse)  // MXNet's default: compressed outputs take row_sparse_pull
                o.erase(std::remove_if(o.begin(), o.end(), [](const NDArray& a) { return a.is_sparse(); }), o.end());
              if (!o.empty()) s.pull(kk, o, priority);
            });
          },
          py::arg("key"), py::arg("out"), py::arg("priority") = 0, py::arg("ignore_sparse") = true)
      .def(
          "row_sparse_pull",
          [](kv::KVStore& s, py::object key, py::object out, int priority, py::object row_ids) {
            BRAID_CHECK(!out.is_none() && !row_ids.is_none(), "kvstore.row_sparse_pull: give out= and row_ids=");
            auto one_key = [&](const kv::Key& k, py::handle o, py::handle r) {
              std::vector<NDArray> outs = array_list(o), ids = array_list(r);
              if (ids.size() == 1 && outs.size() > 1) ids.assign(outs.size(), ids[0]);  // the same rows to each
              py::gil_scoped_release release;
              s.row_sparse_pull(k, outs, ids, priority);
            };
            if (py::isinstance<py::list>(key) || py::isinstance<py::tuple>(key)) {
              auto keys = py::reinterpret_borrow<py::sequence>(key);
              auto outs = py::reinterpret_borrow<py::sequence>(out),
                   ids = py::reinterpret_borrow<py::sequence>(row_ids);
              BRAID_CHECK(outs.size() == keys.size() && ids.size() == keys.size(),
                          "kvstore.row_sparse_pull: ", keys.size(), " keys, ", outs.size(), " outputs and ", ids.size(),
                          " row_ids");
              for (size_t i = 0; i < keys.size(); ++i) one_key(key_of(keys[i]), outs[i], ids[i]);
            } else {
              one_key(key_of(key), out, row_ids);
            }
          },
          py::arg("key"), py::arg("out") = py::none(), py::arg("priority") = 0, py::arg("row_ids") = py::none())
      .def(
          "pushpull",
          [](kv::KVStore& s, py::object key, py::object value, py::object out, int priority) {
            if (out.is_none()) out = value;
            std::vector<kv::Key> keys;
            std::vector<std::vector<NDArray>> values, outs;
            for_each_key_and_out(key, value, out, [&](const kv::Key& k, py::handle v, py::handle o) {
              keys.push_back(k);
              values.push_back(array_list(v));
              outs.push_back(array_list(o));
            });
            s.pushpull(keys, values, outs, priority);
          },
          py::arg("key"), py::arg("value"), py::arg("out") = py::none(), py::arg("priority") = 0)
      .def(
          "broadcast",
          [](kv::KVStore& s, py::object key, py::object value, py::object out, int priority) {
            for_each_key_and_out(key, value, out, [&](const kv::Key& k, py::handle v, py::handle o) {
              s.broadcast(k, v.cast<NDArray>(), array_list(o), priority);
            });
          },
          py::arg("key"), py::arg("value"), py::arg("out"), py::arg("priority") = 0)
      // an optimizer written in Python lives as long as the store
      .def("set_optimizer", &kv::KVStore::set_optimizer, py::keep_alive<1, 2>())
      .def("_core_optimizer", &kv::KVStore::optimizer)  // the one set_optimizer set (a Trainer's), or None
      .def("_set_updater",
           [](kv::KVStore& s, py::function fn) {
             s.set_updater([fn](const kv::Key& key, const NDArray& summed, NDArray& stored) {
               py::gil_scoped_acquire gil;
               py::object k = std::holds_alternative<int>(key) ? py::object(py::int_(std::get<int>(key)))
                                                               : py::object(py::str(std::get<std::string>(key)));
               fn(k, summed, stored);
             });
           })
      .def("set_gradient_compression",
           [](kv::KVStore& s, py::dict params) {
             std::map<std::string, std::string> p;
             for (auto [kk, v] : params) p[kk.cast<std::string>()] = attr_string(v);
             s.set_gradient_compression(p);
           })
      .def("save_optimizer_states", &kv::KVStore::save_optimizer_states, py::arg("fname"),
           py::arg("dump_optimizer") = false)
      .def("load_optimizer_states", &kv::KVStore::load_optimizer_states, py::arg("fname"));
  k.def("_finish_workers", &kv::finish_workers, py::call_guard<py::gil_scoped_release>());
  k.def("create", &kv::create, py::arg("name") = "local", py::call_guard<py::gil_scoped_release>());
  k.def("is_server_process", &kv::is_server_process);
  k.def("run_server", &kv::run_server, py::call_guard<py::gil_scoped_release>());

  auto h = m.def_submodule("collective");
  h.def("init", &collective::init);
  h.def("shutdown", &collective::shutdown);
  h.def("is_initialized", &collective::is_initialized);
  h.def("rank", &collective::rank);
  h.def("size", &collective::size);
  h.def("local_rank", &collective::local_rank);
  h.def("local_size", &collective::local_size);
  h.def("cross_rank", &collective::cross_rank);
  h.def("cross_size", &collective::cross_size);
  h.def("set_fusion_threshold", &collective::set_fusion_threshold);
  h.def(
      "allreduce",
      [](const NDArray& in, bool average, const std::string& name, double prescale, double postscale) {
        return collective::allreduce(in, name, average ? collective::ReduceOp::Average : collective::ReduceOp::Sum,
                                     prescale, postscale);
      },
      py::arg("tensor"), py::arg("average"), py::arg("name"), py::arg("prescale_factor") = 1.0,
      py::arg("postscale_factor") = 1.0, py::call_guard<py::gil_scoped_release>());
  h.def(
      "allreduce_",
      [](const NDArray& t, bool average, const std::string& name, double prescale, double postscale) {
        collective::synchronize(collective::allreduce_async(
            t, t, name, average ? collective::ReduceOp::Average : collective::ReduceOp::Sum, prescale, postscale));
        return t;
      },
      py::arg("tensor"), py::arg("average"), py::arg("name"), py::arg("prescale_factor") = 1.0,
      py::arg("postscale_factor") = 1.0, py::call_guard<py::gil_scoped_release>());
  h.def("allgather", &collective::allgather, py::call_guard<py::gil_scoped_release>());
  h.def("broadcast", &collective::broadcast, py::call_guard<py::gil_scoped_release>());
  h.def(
      "broadcast_",
      [](const NDArray& t, int root, const std::string& name) {
        collective::synchronize(collective::broadcast_async(t, t, root, name));
        return t;
      },
      py::call_guard<py::gil_scoped_release>());
  h.def("alltoall", &collective::alltoall, py::call_guard<py::gil_scoped_release>());
  h.def("broadcast_parameters", &gluon::broadcast_parameters, py::arg("params"), py::arg("root_rank") = 0,
        py::call_guard<py::gil_scoped_release>());
  py::class_<gluon::DistributedTrainer, gluon::Trainer, std::shared_ptr<gluon::DistributedTrainer>>(
      h, "DistributedTrainer")
      .def(py::init([](const gluon::ParameterDict& params, const std::string& optimizer, py::object optimizer_params,
                       double gradient_predivide_factor) {
             std::map<std::string, std::string> p;
             if (!optimizer_params.is_none())
               for (auto [kk, v] : optimizer_params.cast<py::dict>())
                 if (!v.is_none()) p[kk.cast<std::string>()] = attr_string(v);
             return std::make_shared<gluon::DistributedTrainer>(params, optimizer, p, gradient_predivide_factor);
           }),
           py::arg("params"), py::arg("optimizer"), py::arg("optimizer_params") = py::none(),
           py::arg("gradient_predivide_factor") = 1.0);
}

}  // namespace braid::python
