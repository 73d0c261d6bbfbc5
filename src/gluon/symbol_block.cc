#include "braid/gluon/symbol_block.h"

#include <algorithm>

#include "braid/base/error.h"
#include "braid/op/param_reader.h"
#include "cached_graph.h"
#include "graph_tracer.h"
#include "imperative/tracer.h"

namespace braid::gluon {

SymbolBlock::SymbolBlock(const Symbol& outputs, std::vector<std::string> input_names, const ParameterDict& params)
    : HybridBlock("symbolblock", std::string()), symbol_(outputs), input_names_(std::move(input_names)) {
  auto inputs = symbol_.list_inputs();
  for (const auto& name : input_names_)
    BRAID_CHECK(std::find(inputs.begin(), inputs.end(), name) != inputs.end(), "SymbolBlock: input '", name,
                "' is not a variable of the symbol");
  auto aux = symbol_.list_auxiliary_states();
  auto attrs = symbol_.attr_dict();
  for (const auto& name : inputs) {
    if (std::find(input_names_.begin(), input_names_.end(), name) != input_names_.end()) continue;
    if (params.contains(name)) {
      this->params().add(params[name]);
      continue;
    }
    bool is_aux = std::find(aux.begin(), aux.end(), name) != aux.end();
    Shape shape;
    DType dtype = DType::Float32;
    if (auto a = attrs.find(name); a != attrs.end()) {
      if (auto s = a->second.find("__shape__"); s != a->second.end()) shape = Shape(op::parse_tuple(s->second));
      if (auto d = a->second.find("__dtype__"); d != a->second.end())
        dtype = static_cast<DType>(op::parse_int(d->second));
    }
    register_parameter(name, shape, is_aux ? GradReq::Null : GradReq::Write, nullptr, dtype);
  }
  cached_ = std::make_shared<detail::CachedGraph>(symbol_, input_names_, this->params(), false);
}

std::shared_ptr<SymbolBlock> SymbolBlock::imports(const std::string& symbol_file,
                                                  const std::vector<std::string>& input_names,
                                                  const std::string& param_file, const std::vector<Context>& ctx) {
  auto block = std::make_shared<SymbolBlock>(Symbol::load(symbol_file), input_names);
  if (!param_file.empty()) block->collect_params().load(param_file, ctx, false, false, "", true);
  return block;
}

void SymbolBlock::hybridize(bool active, bool static_alloc, bool static_shape) {
  // Always a graph; static_alloc picks how its buffers are kept.
  HybridBlock::hybridize(active, static_alloc, static_shape);
  cached_ = std::make_shared<detail::CachedGraph>(symbol_, input_names_, params(), static_alloc);
  hook_cached_graph();
}

void SymbolBlock::finish_shapes(const std::vector<NDArray>& inputs) {
  bool deferred = false;
  for (const auto& [name, p] : params()) deferred = deferred || p->deferred();
  if (!deferred) return;
  std::map<std::string, Shape> known;
  for (size_t i = 0; i < inputs.size() && i < input_names_.size(); ++i) known[input_names_[i]] = inputs[i].shape();
  auto shapes = symbol_.infer_shape(known);
  auto args = symbol_.list_arguments(), aux = symbol_.list_auxiliary_states();
  for (size_t i = 0; i < args.size(); ++i)
    if (params().contains(args[i]) && params()[args[i]]->deferred())
      params()[args[i]]->finish_deferred_init(shapes.arg[i]);
  for (size_t i = 0; i < aux.size(); ++i)
    if (params().contains(aux[i]) && params()[aux[i]]->deferred())
      params()[aux[i]]->finish_deferred_init(shapes.aux[i]);
}

std::vector<NDArray> SymbolBlock::forward(const std::vector<NDArray>& inputs) {
  BRAID_CHECK(inputs.size() == input_names_.size(), "SymbolBlock takes ", input_names_.size(), " inputs but got ",
              inputs.size());
  detail::GraphTracer* tracer = detail::GraphTracer::current();
  if (!tracer) {
    finish_shapes(inputs);
    return (*cached_)(inputs);
  }
  // Inside an outer block's trace, the graph goes into the outer graph whole (MXNet composes it
  // with the caller's inputs); its parameters stay variables of their names.
  std::map<std::string, Symbol> bound;
  for (size_t i = 0; i < inputs.size(); ++i)
    bound[input_names_[i]] = Symbol(std::vector<symbol::Entry>{tracer->entry_of(inputs[i])});
  for (const auto& name : symbol_.list_inputs())
    if (params().contains(name)) bound[name] = Symbol(std::vector<symbol::Entry>{tracer->param_entry(params()[name])});
  const std::vector<symbol::Entry> entries = symbol_.compose({}, bound).outputs();
  if (tracer->symbolic()) {
    std::vector<NDArray> tokens;
    for (const auto& e : entries) tokens.push_back(tracer->token_for(e));
    return tokens;
  }
  finish_shapes(inputs);
  std::vector<NDArray> out;
  {
    imperative::TracerPause pause;
    out = (*cached_)(inputs);
  }
  for (size_t k = 0; k < out.size() && k < entries.size(); ++k) tracer->note_computed(out[k], entries[k]);
  return out;
}

std::string SymbolBlock::describe() const { return "SymbolBlock"; }

}  // namespace braid::gluon
