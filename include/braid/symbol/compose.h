#pragma once
/// Building symbols from registered operators (MXNet's mx.sym.<Op>(...) calls).
///
///   Symbol x = Symbol::Variable("data");
///   Symbol c = sym::make("Convolution", {{"data", x}}, {{"kernel", "(5, 5)"}, {"num_filter", "20"}});
///   // c is "convolution0"; its weight and bias are new variables convolution0_weight, _bias
///   Symbol y = sym::make("Activation", {c}, {{"act_type", "relu"}});
///
/// Inputs are given by MXNet's argument names (data, weight, bias, gamma, beta, moving_mean,
/// moving_var, label, lhs, rhs, ...) or by position; every one left out becomes a variable named
/// `<node name>_<argument>`. Without a name the node is called `<op in lower case><n>`, n
/// counting per op spelling in the current NameScope (thread-local), as MXNet's NameManager does.
#include <string>
#include <utility>
#include <vector>

#include "braid/symbol/symbol.h"

namespace braid::sym {

/// Inputs by argument name; an empty name means "the next positional argument".
using NamedInputs = std::vector<std::pair<std::string, Symbol>>;

Symbol make(const std::string& op, const NamedInputs& inputs, const op::AttrMap& attrs = {},
            const std::string& name = "");
/// Inputs by position.
Symbol make(const std::string& op, const std::vector<Symbol>& inputs, const op::AttrMap& attrs = {},
            const std::string& name = "");

/// `with mx.name.Prefix("net_")`: names made while it lives, given or automatic, start with the
/// prefix, with automatic counters of their own.
class Prefix {
 public:
  explicit Prefix(std::string prefix);
  ~Prefix();
  Prefix(const Prefix&) = delete;
  Prefix& operator=(const Prefix&) = delete;
};

/// `with mx.AttrScope(ctx_group="dev1")`: nodes and variables made while it lives get these
/// attributes as hidden keys (`__ctx_group__`), nested scopes adding to the outer ones.
class AttrScope {
 public:
  explicit AttrScope(const op::AttrMap& attrs);
  ~AttrScope();
  AttrScope(const AttrScope&) = delete;
  AttrScope& operator=(const AttrScope&) = delete;

 private:
  op::AttrMap prev_;
};

/// The hidden attributes of the current AttrScope.
const op::AttrMap& current_scope_attrs();

}  // namespace braid::sym

namespace braid {
/// Element-wise arithmetic, as MXNet's Symbol operators (elemwise_add, _plus_scalar, ...).
Symbol operator+(const Symbol& a, const Symbol& b);
Symbol operator-(const Symbol& a, const Symbol& b);
Symbol operator*(const Symbol& a, const Symbol& b);
Symbol operator/(const Symbol& a, const Symbol& b);
Symbol operator+(const Symbol& a, double s);
Symbol operator-(const Symbol& a, double s);
Symbol operator*(const Symbol& a, double s);
Symbol operator/(const Symbol& a, double s);
Symbol operator+(double s, const Symbol& a);
Symbol operator-(double s, const Symbol& a);
Symbol operator*(double s, const Symbol& a);
Symbol operator/(double s, const Symbol& a);
}  // namespace braid
