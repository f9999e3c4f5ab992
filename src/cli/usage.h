// The command line's own manners, beside main.cc's subcommand table: the nearest name for a
// mistyped subcommand, `rtagent help SUBCOMMAND`, and the --version line.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace rtagent {

/// argv[1..] as strings.
std::vector<std::string> Arguments(int argc, char** argv);

/// The names of `app`'s subcommands, in the order they were added.
std::vector<std::string> SubcommandNames(const CLI::App& app);

/// The first word of `args` that is not an option (nor the value of one of
/// `options_with_value`, as `--root DIR`) when it names none of `known`; "" when it does, or
/// when there is no such word (`rtagent --version`). Stops at "--".
std::string UnknownSubcommand(const std::vector<std::string>& args, const std::vector<std::string>& known,
                              const std::vector<std::string>& options_with_value);
std::string UnknownSubcommand(const std::vector<std::string>& args, const CLI::App& app,
                              const std::vector<std::string>& options_with_value);

/// When the first word of `args` that is not an option is "help": it and the words after it
/// that are not options ({"help", "bench", "pi"}); otherwise empty, and empty with -h or
/// --help anywhere (`rtagent help --help` is the parser's).
std::vector<std::string> HelpWords(const std::vector<std::string>& args,
                                   const std::vector<std::string>& options_with_value);

/// "rtagent: unknown subcommand 'comision'; did you mean 'commission'?" and a hint line; with no
/// plausible nearest name, the list of subcommands instead. `who` starts the line.
std::string UnknownSubcommandMessage(const std::string& word, const std::vector<std::string>& known,
                                     const std::string& who = "rtagent");
std::string UnknownSubcommandMessage(const std::string& word, const CLI::App& app);

/// After a parse that failed because a subcommand was needed and none was given (`rtagent`,
/// `rtagent import`): "rtagent import: name a subcommand: tuned" and a hint, for the deepest
/// subcommand the parse selected; empty when `e` is another error.
std::string MissingSubcommandMessage(const CLI::App& app, const CLI::ParseError& e);

/// `rtagent help [SUBCOMMAND [SUBCOMMAND]]`: the help of the subcommand `words` names (of the
/// whole program when empty) on `out`, exit 0; an unknown name on `err` as above, exit 2.
int PrintHelpOf(const CLI::App& app, const std::vector<std::string>& words, std::ostream& out, std::ostream& err);

/// "rtagent 0.1.0 (build: v0.1.0-12-gabcdef0)": the project version and how this binary was
/// built (git describe at configure time, or the package's version).
std::string VersionText(const std::string& version, const std::string& build);

}  // namespace rtagent
