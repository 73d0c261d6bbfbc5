#pragma once
// Runs a reference script of tests/unit/optim with Debian's /usr/bin/python3 (numpy, torch):
// the cases go in as JSON, the results come back as JSON. A missing interpreter or module fails
// the test (the reference is a dependency, scripts/install-deps.sh), it never skips.
#include <string>

#include <nlohmann/json.hpp>

namespace braid::test {

/// True when /usr/bin/python3 imports every module in `modules` ("numpy", "torch").
bool python_has(const std::string& modules);

/// Runs tests/unit/optim/<script> on `cases`; throws std::runtime_error with the script's output
/// when it fails.
nlohmann::json run_reference(const std::string& script, const nlohmann::json& cases);

}  // namespace braid::test
