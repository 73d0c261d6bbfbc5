#include <regex>
#include <set>

#include "braid/base/error.h"
#include "braid/gluon/parameter.h"
#include "braid/io/params.h"

namespace braid::gluon {
namespace {

std::string name_list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += cat(s.empty() ? "" : ", ", n);
  return s.empty() ? "(none)" : s;
}

}  // namespace

ParameterPtr ParameterDict::get(const std::string& name, Shape shape, DType dtype, GradReq grad_req,
                                init::InitializerPtr init, bool allow_deferred_init) {
  const std::string full = prefix_ + name;
  if (auto it = index_.find(full); it != index_.end()) {
    const ParameterPtr& p = params_[it->second].second;
    if (shape.ndim() >= 0) p->set_shape(shape);
    return p;
  }
  if (shared_ && shared_->contains(full)) {
    ParameterPtr p = (*shared_)[full];
    if (shape.ndim() >= 0) p->set_shape(shape);
    add(p);
    return p;
  }
  auto p = std::make_shared<Parameter>(full, std::move(shape), dtype, grad_req, std::move(init), allow_deferred_init);
  add(p);
  return p;
}

void ParameterDict::add(const ParameterPtr& p) {
  auto it = index_.find(p->name());
  if (it != index_.end()) {
    BRAID_CHECK(params_[it->second].second == p, "cannot add Parameter '", p->name(),
                "': a different parameter of that name is already in the dictionary");
    return;
  }
  index_[p->name()] = params_.size();
  params_.emplace_back(p->name(), p);
}

void ParameterDict::update(const ParameterDict& other) {
  for (const auto& [name, p] : other) add(p);
}

const ParameterPtr& ParameterDict::operator[](const std::string& full_name) const {
  auto it = index_.find(full_name);
  BRAID_CHECK(it != index_.end(), "no parameter named '", full_name, "'; the dictionary holds: ", name_list(keys()));
  return params_[it->second].second;
}

std::vector<std::string> ParameterDict::keys() const {
  std::vector<std::string> k;
  for (const auto& [name, p] : params_) k.push_back(name);
  return k;
}

ParameterDict ParameterDict::select(const std::string& pattern) const {
  std::regex re;
  try {
    re = std::regex(pattern);
  } catch (const std::regex_error& e) {
    throw Error(cat("collect_params: invalid regular expression '", pattern, "': ", e.what()));
  }
  ParameterDict out(prefix_);
  for (const auto& [name, p] : params_)
    if (std::regex_search(name, re, std::regex_constants::match_continuous)) out.add(p);  // Python's re.match
  return out;
}

void ParameterDict::initialize(const init::InitializerPtr& init, const std::vector<Context>& ctx, bool force_reinit) {
  for (const auto& [name, p] : params_) p->initialize(init, ctx, force_reinit);
}

void ParameterDict::zero_grad() {
  for (const auto& [name, p] : params_)
    if (p->grad_req() != GradReq::Null && p->initialized()) p->zero_grad();
}

void ParameterDict::reset_ctx(const std::vector<Context>& ctx) {
  for (const auto& [name, p] : params_) p->reset_ctx(ctx);
}

void ParameterDict::set_grad_req(GradReq req) {
  for (const auto& [name, p] : params_) p->set_grad_req(req);
}

void ParameterDict::set_lr_mult(double m) {
  for (const auto& [name, p] : params_) p->lr_mult = m;
}

void ParameterDict::set_wd_mult(double m) {
  for (const auto& [name, p] : params_) p->wd_mult = m;
}

void ParameterDict::save(const std::string& path, const std::string& strip_prefix) const {
  std::vector<std::pair<std::string, NDArray>> named;
  for (const auto& [name, p] : params_) {
    BRAID_CHECK(name.compare(0, strip_prefix.size(), strip_prefix) == 0, "cannot strip prefix '", strip_prefix,
                "' from parameter '", name, "' while saving to ", path);
    named.emplace_back(name.substr(strip_prefix.size()), p->reduce());
  }
  io::save(path, named);
}

void ParameterDict::load(const std::string& path, const std::vector<Context>& ctx, bool allow_missing,
                         bool ignore_extra, const std::string& restore_prefix, bool cast_dtype) {
  io::NamedArrays file = io::load(path);
  BRAID_CHECK(!file.names.empty() || file.arrays.empty(), "cannot load parameters from ", path,
              ": it holds unnamed arrays (saved with nd::save of a list)");
  std::vector<std::pair<std::string, NDArray>> loaded;
  for (size_t i = 0; i < file.arrays.size(); ++i) {
    std::string name = file.names[i];
    // Checkpoints (Module's save_checkpoint) prefix names with arg: or aux:.
    if (name.rfind("arg:", 0) == 0 || name.rfind("aux:", 0) == 0) name = name.substr(4);
    loaded.emplace_back(restore_prefix + name, file.arrays[i]);
  }
  load_into(params_, loaded, path, ctx, allow_missing, ignore_extra, cast_dtype);
}

void load_into(const std::vector<std::pair<std::string, ParameterPtr>>& params,
               const std::vector<std::pair<std::string, NDArray>>& loaded, const std::string& file,
               const std::vector<Context>& ctx, bool allow_missing, bool ignore_extra, bool cast_dtype) {
  std::set<std::string> in_file;
  std::vector<std::string> file_names, param_names;
  for (const auto& [name, a] : loaded) {
    in_file.insert(name);
    file_names.push_back(name);
  }
  std::map<std::string, ParameterPtr> wanted;
  for (const auto& [name, p] : params) {
    wanted.emplace(name, p);
    param_names.push_back(name);
  }
  if (!allow_missing)
    for (const auto& [name, p] : params)
      BRAID_CHECK(in_file.count(name), "Parameter '", name, "' is missing in file '", file,
                  "', which contains parameters: ", name_list(file_names),
                  ". Set allow_missing=true to ignore missing parameters");
  for (const auto& [name, a] : loaded) {
    auto it = wanted.find(name);
    if (it == wanted.end()) {
      BRAID_CHECK(ignore_extra, "Parameter '", name, "' loaded from file '", file,
                  "' is not present in the block, which contains parameters: ", name_list(param_names),
                  ". Set ignore_extra=true to ignore");
      continue;
    }
    it->second->load_init(a, ctx, cast_dtype);
  }
}

}  // namespace braid::gluon
