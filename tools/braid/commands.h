#pragma once
// The braid CLI's commands; each returns the process exit code and throws braid::Error on failure.
#include <ostream>
#include <string>
#include <vector>

namespace braid::cli {

int ops_list(std::ostream& out);
/// One line per array: `NAME DTYPE (d0, d1, ...)`.
int params_show(const std::string& path, std::ostream& out);
/// Draws loss and accuracy per epoch of `logs` (braid train --json-log files) into a PNG.
int plot(const std::vector<std::string>& logs, const std::string& output);

}  // namespace braid::cli
