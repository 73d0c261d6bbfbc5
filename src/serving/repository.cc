#include "braid/serving/repository.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "braid/base/error.h"
#include "serving/model_names.h"

namespace braid::serving {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

}  // namespace

Repository::Repository(std::string dir) : dir_(std::move(dir)) {
  BRAID_CHECK(fs::is_directory(dir_), "the model repository ", dir_, " is not a folder");
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.is_directory()) load(e.path().filename().string());
}

void Repository::load(const std::string& name) {
  check_model_name(name);
  if (!fs::is_directory(dir_ + "/" + name))
    throw RequestError(404, cat("the repository ", dir_, " has no model folder '", name, "'"));
  std::map<int64_t, std::shared_ptr<ServedModel>> versions;
  for (const auto& v : fs::directory_iterator(dir_ + "/" + name)) {
    const std::string version = v.path().filename().string();
    const auto number = version_number(version);
    if (!v.is_directory() || !number) continue;
    try {
      versions[*number] = std::make_shared<ServedModel>(name, version, v.path().string());
    } catch (const RequestError&) {
      throw;
    } catch (const Error& e) {
      throw RequestError(400, cat("model ", name, " version ", version, ": ", e.what()));
    }
  }
  if (versions.empty())
    throw RequestError(400, cat("model ", name, " in ", dir_, " has no version folder (", dir_, "/", name, "/1/)"));
  std::lock_guard<std::mutex> lock(mu_);
  models_[name] = std::move(versions);
}

std::shared_ptr<ServedModel> Repository::find(const std::string& name, const std::string& version) const {
  check_model_name(name);
  const auto number = version_number(version);
  if (!version.empty() && !number)
    throw RequestError(400, cat("a version is a number of 1 to 18 digits; got '", version.substr(0, 64),
                                version.size() > 64 ? "...'" : "'"));
  std::lock_guard<std::mutex> lock(mu_);
  auto m = models_.find(name);
  if (m == models_.end()) throw RequestError(404, cat("no model named '", name, "'"));
  if (version.empty()) return m->second.rbegin()->second;
  auto v = m->second.find(*number);
  if (v == m->second.end()) throw RequestError(404, cat("model '", name, "' has no version '", version, "'"));
  return v->second;
}

void Repository::unload(const std::string& name) {
  check_model_name(name);
  std::lock_guard<std::mutex> lock(mu_);
  if (!models_.erase(name)) throw RequestError(404, cat("model '", name, "' is not loaded"));
}

std::string Repository::index() const {
  json out = json::array();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& e : fs::directory_iterator(dir_)) {
    if (!e.is_directory()) continue;
    const std::string name = e.path().filename().string();
    auto m = models_.find(name);
    if (m == models_.end())
      out.push_back({{"name", name}, {"state", "UNAVAILABLE"}});
    else
      for (const auto& [v, model] : m->second)
        out.push_back({{"name", name}, {"version", model->version()}, {"state", "READY"}});
  }
  return out.dump();
}

std::vector<std::shared_ptr<ServedModel>> Repository::all() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<ServedModel>> out;
  for (const auto& [name, versions] : models_)
    for (const auto& [v, m] : versions) out.push_back(m);
  return out;
}

std::vector<std::string> Repository::names() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, versions] : models_) out.push_back(name);
  return out;
}

}  // namespace braid::serving
