#pragma once
/// JSON text laid out exactly as dmlc-core's JSONWriter lays it out, which is how MXNet writes
/// `*-symbol.json`: an object or array spans several lines (two spaces of indent per level,
/// items separated by ", " and a newline) when an object has more than one key, or an array more
/// than ten items or any object among them; otherwise it stays on one line. Used so that the
/// files Braid writes are byte for byte those MXNet writes for the same graph.
#include <nlohmann/json.hpp>
#include <string>

namespace braid::io {

/// `value` in dmlc-core's layout (no trailing newline). Key order is the object's own order.
std::string dump_dmlc_json(const nlohmann::ordered_json& value);

}  // namespace braid::io
