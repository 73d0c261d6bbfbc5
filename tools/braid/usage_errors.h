#pragma once
// What braid prints for a mistyped command line: the nearest subcommand or option ("did you
// mean"), and the version line with this build's features.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace braid::cli {

/// The one choice `word` abbreviates, or the choice closest to it by edit distance when it is
/// close enough to be a typo.
std::optional<std::string> nearest(const std::string& word, const std::vector<std::string>& choices);

/// "unknown command 'trian' of braid; did you mean 'train'? ..." when a word of argv where a
/// subcommand must come (braid trian, braid params shwo) names none; empty otherwise.
std::string unknown_command(const CLI::App& app, int argc, char** argv);

/// For each --option of argv that `command` does not have: "unknown option '--epoch' of braid
/// train; did you mean '--epochs'?"; empty when every option is known.
std::string unknown_options(CLI::App& command, int argc, char** argv);

/// Option checks whose errors say what was wrong in words: "--epochs: must be at least 1, got 0".
extern const CLI::Validator kPositive;     // > 0
extern const CLI::Validator kNonNegative;  // >= 0

/// "braid 0.1.0 (MXNet 1.9.1's API and file formats)" and a line of this build's features.
std::string version_text();

}  // namespace braid::cli
