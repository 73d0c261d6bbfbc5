// braid onnx export|import: ONNX conversion of model files, done by the Python package's
// braid.onnx (on python3-onnx) in an interpreter this command starts in its place.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "commands.h"

namespace braid::cli {
namespace {

namespace fs = std::filesystem;

// The interpreter: BRAID_PYTHON, else a python3 beside this program (a virtual environment's
// bin/), else Debian's, else the first on PATH.
std::string python_interpreter(const fs::path& here) {
  if (auto chosen = env_str({"BRAID_PYTHON"})) return *chosen;
  for (const fs::path& p : {here / "python3", fs::path("/usr/bin/python3")})
    if (fs::exists(p)) return p.string();
  return "python3";
}

}  // namespace

CLI::App* add_onnx_command(CLI::App& app, OnnxOptions& o) {
  auto* c = app.add_subcommand("onnx", "convert model files to and from ONNX (mx.onnx; needs python3-onnx)");
  c->require_subcommand(1);
  auto* e = c->add_subcommand("export", "SYMBOL PARAMS to an ONNX model (opset 13)");
  e->add_option("SYMBOL", o.symbol, "the *-symbol.json file")->required();
  e->add_option("PARAMS", o.params, "the .params file")->required();
  e->add_option("--shape", o.shapes, "an input's shape, e.g. 1,1,28,28 (repeat for several, in the graph's order)")
      ->required();
  e->add_option("-o,--output", o.output, "the .onnx file to write")->capture_default_str();
  e->add_flag("--dynamic", o.dynamic, "a symbolic batch axis");
  auto* i = c->add_subcommand("import", "an ONNX model to PREFIX-symbol.json and PREFIX-0000.params");
  i->add_option("MODEL", o.model, "the .onnx file")->required();
  i->add_option("PREFIX", o.prefix, "of the files to write")->required();
  return c;
}

int onnx(const CLI::App& command, const OnnxOptions& o) {
  std::vector<std::string> args = {"python3", "-m", "braid.onnx"};
  if (command.get_subcommand("export")->parsed()) {
    args.insert(args.end(), {"export", o.symbol, o.params, "-o", o.output});
    for (const auto& s : o.shapes) args.insert(args.end(), {"--shape", s});
    if (o.dynamic) args.push_back("--dynamic");
  } else {
    args.insert(args.end(), {"import", o.model, o.prefix});
  }
  const fs::path here = fs::canonical("/proc/self/exe").parent_path();
  const fs::path build_tree_package = here.parent_path() / "python";  // build/bin/braid: build/python/braid
  if (fs::exists(build_tree_package / "braid")) {
    const auto old = env_str({"PYTHONPATH"});
    const std::string path = build_tree_package.string() + (old && !old->empty() ? ":" + *old : "");
    ::setenv("PYTHONPATH", path.c_str(), 1);
  }
  const std::string python = python_interpreter(here);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execvp(python.c_str(), argv.data());
  throw Error(cat("braid onnx: cannot start ", python, " (", std::strerror(errno),
                  "); set BRAID_PYTHON to a Python 3 with NumPy and python3-onnx"));
}

}  // namespace braid::cli
