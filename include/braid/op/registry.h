#pragma once
/// The one operator registry. Families of ops register themselves at start-up from
/// src/op/register_all.cc (explicit calls, no static-initialization tricks).
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "braid/op/op_def.h"

namespace braid::op {

class Registry {
 public:
  /// The registry with every built-in operator.
  static Registry& get();

  /// Adds an operator; throws if the name is taken.
  OpDef& add(OpDef def);
  /// Makes `alias` another name of `name` (MXNet's `_plus` for `elemwise_add`).
  void add_alias(const std::string& alias, const std::string& name);
  /// Throws braid::Error "unknown operator 'X'" with close names as suggestions.
  const OpDef& find(const std::string& name) const;
  const OpDef* find_or_null(const std::string& name) const;
  /// The registered `name` (or alias), to attach another device's kernels while registering
  /// (the GPU kernels of src/op/**/*.cu); throws like find.
  OpDef& at(const std::string& name);
  /// Canonical names, sorted.
  std::vector<std::string> names() const;
  /// Canonical names and aliases, sorted (MXNet's list of registered operators).
  std::vector<std::string> names_and_aliases() const;

 private:
  std::unordered_map<std::string, std::unique_ptr<OpDef>> ops_;
  std::unordered_map<std::string, std::string> aliases_;
};

}  // namespace braid::op
