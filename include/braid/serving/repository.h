#pragma once
/// A model repository, KServe/Triton style: DIR/<model>/<version>/ folders, each one version of a
/// model (its files and config.json: served_model.h). Versions are the numeric folder names; the
/// highest serves by default.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "braid/serving/served_model.h"

namespace braid::serving {

class Repository {
 public:
  /// Loads every model of `dir`; throws naming the folder or file that is wrong.
  explicit Repository(std::string dir);
  /// The model's given version, or its newest; RequestError 404 if there is none.
  std::shared_ptr<ServedModel> find(const std::string& name, const std::string& version = "") const;
  std::vector<std::string> names() const;
  /// Every loaded version of every model.
  std::vector<std::shared_ptr<ServedModel>> all() const;

  /// (Re)loads DIR/<name> from disk, picking up new versions; RequestError 404 without the folder,
  /// 400 when its files are wrong (the versions loaded before stay). Requests in flight finish on
  /// the model they started with.
  void load(const std::string& name);
  /// Stops serving `name` (RequestError 404 if it is not loaded).
  void unload(const std::string& name);
  /// Every model folder: {"name", "version", "state": READY or UNAVAILABLE}, as JSON text.
  std::string index() const;

 private:
  std::string dir_;
  mutable std::mutex mu_;
  std::map<std::string, std::map<int64_t, std::shared_ptr<ServedModel>>> models_;  // name -> version -> model
};

}  // namespace braid::serving
