#include "python_reference.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace braid::test {

namespace fs = std::filesystem;

bool python_has(const std::string& modules) {
  std::string cmd = "/usr/bin/python3 -c 'import " + modules + "' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

nlohmann::json run_reference(const std::string& script, const nlohmann::json& cases) {
  char tmpl[] = "/tmp/braid_optim_ref_XXXXXX";
  if (mkdtemp(tmpl) == nullptr) throw std::runtime_error("cannot create a temporary folder");
  fs::path dir = tmpl;
  std::ofstream(dir / "cases.json") << cases.dump();
  fs::path src = fs::path(BRAID_SOURCE_DIR) / "tests/unit/optim" / script;
  std::string cmd = "/usr/bin/python3 -B " + src.string() + " " + (dir / "cases.json").string() + " " +
                    (dir / "results.json").string() + " >" + (dir / "log.txt").string() + " 2>&1";
  int rc = std::system(cmd.c_str());
  std::stringstream log;
  log << std::ifstream(dir / "log.txt").rdbuf();
  nlohmann::json out;
  if (rc == 0) std::ifstream(dir / "results.json") >> out;
  fs::remove_all(dir);
  if (rc != 0) throw std::runtime_error(script + " failed (exit " + std::to_string(rc) + "):\n" + log.str());
  return out;
}

}  // namespace braid::test
