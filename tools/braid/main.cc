// The braid command line: `braid <group> <command> [args]`.
#include <cstdio>
#include <iostream>
#include <string>

#include "braid/base/error.h"
#include "commands.h"

int main(int argc, char** argv) {
  const std::string usage =
      "usage: braid <command>\n"
      "  params show FILE   list the arrays of an MXNet .params file\n"
      "  ops list           list the registered operators\n";
  if (argc < 3) {
    std::cerr << usage;
    return 2;
  }
  std::string group = argv[1], cmd = argv[2];
  try {
    if (group == "ops" && cmd == "list") return braid::cli::ops_list(std::cout);
    if (group == "params" && cmd == "show") {
      if (argc != 4) {
        std::cerr << "usage: braid params show FILE\n";
        return 2;
      }
      return braid::cli::params_show(argv[3], std::cout);
    }
  } catch (const braid::Error& e) {
    std::cerr << "braid: error: " << e.what() << "\n";
    return 2;
  }
  std::cerr << "braid: unknown command '" << group << " " << cmd << "'\n" << usage;
  return 2;
}
