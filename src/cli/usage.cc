#include "cli/usage.h"

#include <algorithm>

#include "base/exit_codes.h"
#include "profile/diagnostics.h"

namespace rtagent {

std::vector<std::string> Arguments(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return args;
}

std::vector<std::string> SubcommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

std::string UnknownSubcommand(const std::vector<std::string>& args, const std::vector<std::string>& known,
                              const std::vector<std::string>& options_with_value) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return "";
    if (!a.empty() && a[0] == '-') {
      // `--root DIR` takes the next word; `--root=DIR` does not.
      if (std::find(options_with_value.begin(), options_with_value.end(), a) != options_with_value.end()) ++i;
      continue;
    }
    return std::find(known.begin(), known.end(), a) == known.end() ? a : "";
  }
  return "";
}

std::string UnknownSubcommand(const std::vector<std::string>& args, const CLI::App& app,
                              const std::vector<std::string>& options_with_value) {
  return UnknownSubcommand(args, SubcommandNames(app), options_with_value);
}

std::vector<std::string> HelpWords(const std::vector<std::string>& args,
                                   const std::vector<std::string>& options_with_value) {
  std::vector<std::string> words;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a == "-h" || a == "--help") return {};  // `rtagent help --help`: CLI11 shows help's own
    if (!a.empty() && a[0] == '-') {
      if (std::find(options_with_value.begin(), options_with_value.end(), a) != options_with_value.end()) ++i;
      continue;
    }
    if (words.empty() && a != "help") return {};
    words.push_back(a);
  }
  return words;
}

std::string UnknownSubcommandMessage(const std::string& word, const std::vector<std::string>& known,
                                     const std::string& who) {
  std::string msg = who + ": unknown subcommand '" + word + "'";
  if (std::string near = profile::NearestWord(word, known); !near.empty()) {
    msg += "; did you mean '" + near + "'?\n  hint: `rtagent --help` lists every subcommand\n";
    return msg;
  }
  msg += "\n  hint: the subcommands are ";
  for (size_t i = 0; i < known.size(); ++i) msg += (i == 0 ? "" : ", ") + known[i];
  return msg + "\n";
}

std::string UnknownSubcommandMessage(const std::string& word, const CLI::App& app) {
  return UnknownSubcommandMessage(word, SubcommandNames(app));
}

std::string MissingSubcommandMessage(const CLI::App& app, const CLI::ParseError& e) {
  if (e.get_name() != "RequiredError" || std::string(e.what()) != "A subcommand is required") return "";
  const CLI::App* cur = &app;
  std::string who = "rtagent";
  for (;;) {
    const auto selected = cur->get_subcommands();
    if (selected.empty()) break;
    cur = selected.front();
    who += " " + cur->get_name();
  }
  std::string msg = who + ": name a subcommand: ";
  const std::vector<std::string> names = SubcommandNames(*cur);
  for (size_t i = 0; i < names.size(); ++i) msg += (i == 0 ? "" : ", ") + names[i];
  msg += "\n  hint: `" + who + " --help` says what each does";
  if (cur == &app) msg += "; `rtagent commission` runs the whole loop on this board";
  return msg + "\n";
}

int PrintHelpOf(const CLI::App& app, const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  const CLI::App* cur = &app;
  std::string prefix = "rtagent";  // "rtagent bench" for `help bench pi`
  for (const std::string& w : words) {
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : cur->get_subcommands({})) {
      if (sub->get_name() == w) next = sub;
    }
    if (next == nullptr) {
      err << UnknownSubcommandMessage(w, SubcommandNames(*cur), cur == &app ? prefix : prefix + " " + cur->get_name());
      return kExitBadInput;
    }
    if (cur != &app) prefix += " " + cur->get_name();
    cur = next;
  }
  out << cur->help(cur == &app ? "" : prefix);
  return kExitOk;
}

std::string VersionText(const std::string& version, const std::string& build) {
  return "rtagent " + version + " (build: " + (build.empty() ? version : build) + ")";
}

}  // namespace rtagent
