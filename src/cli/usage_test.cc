// The command line's manners: a mistyped subcommand's nearest name, `rtagent help SUBCOMMAND`,
// and --version, as functions and through the built binary.
#include "cli/usage.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "base/shell_test_support.h"

namespace {

const std::vector<std::string> kKnown = {"validate", "plan", "commission", "bench"};

rtagent::test::ShellResult RtAgent(const std::string& args) {
  return rtagent::test::RunShell(std::string(RTAGENT_BINARY) + " " + args + " 2>&1");
}

}  // namespace

TEST_CASE("the first word that is not an option is the subcommand to check", "[cli]") {
  using rtagent::UnknownSubcommand;
  const std::vector<std::string> with_value = {"--root"};
  CHECK(UnknownSubcommand({"comision"}, kKnown, with_value) == "comision");
  CHECK(UnknownSubcommand({"commission", "x.yaml"}, kKnown, with_value) == "");
  CHECK(UnknownSubcommand({"--root", "validate", "plann"}, kKnown, with_value) == "plann");
  CHECK(UnknownSubcommand({"--root=/x", "plann"}, kKnown, with_value) == "plann");
  CHECK(UnknownSubcommand({"--allow-unsafe-profile", "plan"}, kKnown, with_value) == "");
  CHECK(UnknownSubcommand({"--version"}, kKnown, with_value) == "");
  CHECK(UnknownSubcommand({}, kKnown, with_value) == "");
  CHECK(UnknownSubcommand({"--", "plann"}, kKnown, with_value) == "");
}

TEST_CASE("help words are read before the parser sees them", "[cli]") {
  using rtagent::HelpWords;
  const std::vector<std::string> with_value = {"--root"};
  CHECK(HelpWords({"help", "bench", "pi"}, with_value) == std::vector<std::string>{"help", "bench", "pi"});
  CHECK(HelpWords({"--root", "x", "help", "accept"}, with_value) == std::vector<std::string>{"help", "accept"});
  CHECK(HelpWords({"help"}, with_value) == std::vector<std::string>{"help"});
  CHECK(HelpWords({"accept", "help"}, with_value).empty());
  CHECK(HelpWords({"help", "--help"}, with_value).empty());
  CHECK(HelpWords({"--version"}, with_value).empty());
}

TEST_CASE("an unknown subcommand gets the nearest name or the list", "[cli]") {
  CHECK(rtagent::UnknownSubcommandMessage("comision", kKnown) ==
        "rtagent: unknown subcommand 'comision'; did you mean 'commission'?\n"
        "  hint: `rtagent --help` lists every subcommand\n");
  CHECK(rtagent::UnknownSubcommandMessage("frobnicate", kKnown) ==
        "rtagent: unknown subcommand 'frobnicate'\n  hint: the subcommands are validate, plan, commission, bench\n");
}

TEST_CASE("help prints a subcommand's help, a nested one's, or says the name is unknown", "[cli]") {
  CLI::App app{"test app"};
  bool quick = false, periods = false;
  auto* b = app.add_subcommand("bench", "Measure");
  b->add_flag("--quick", quick, "few samples");
  auto* pi = b->add_subcommand("pi", "Priority inversion");
  pi->add_flag("--periods", periods, "how many");
  std::ostringstream out, err;
  CHECK(rtagent::PrintHelpOf(app, {"bench"}, out, err) == 0);
  CHECK_THAT(out.str(), Catch::Contains("--quick"));
  CHECK_THAT(out.str(), Catch::Contains("rtagent bench"));
  out.str("");
  CHECK(rtagent::PrintHelpOf(app, {"bench", "pi"}, out, err) == 0);
  CHECK_THAT(out.str(), Catch::Contains("--periods"));
  CHECK_THAT(out.str(), Catch::Contains("rtagent bench pi"));
  CHECK(err.str().empty());
  CHECK(rtagent::PrintHelpOf(app, {"bench", "po"}, out, err) == 2);
  CHECK(err.str() == "rtagent bench: unknown subcommand 'po'; did you mean 'pi'?\n"
                     "  hint: `rtagent --help` lists every subcommand\n");
}

TEST_CASE("the version line names the version and the build", "[cli]") {
  CHECK(rtagent::VersionText("0.1.0", "v0.1.0-3-gabc1234") == "rtagent 0.1.0 (build: v0.1.0-3-gabc1234)");
  CHECK(rtagent::VersionText("0.1.0", "") == "rtagent 0.1.0 (build: 0.1.0)");
}

TEST_CASE("rtagent comision suggests commission and exits 2", "[cli]") {
  auto r = RtAgent("comision");
  CHECK(r.code == 2);
  CHECK(r.out == "rtagent: unknown subcommand 'comision'; did you mean 'commission'?\n"
                 "  hint: `rtagent --help` lists every subcommand\n");
  auto after_root = RtAgent("--root /tmp verfy");
  CHECK(after_root.code == 2);
  CHECK_THAT(after_root.out, Catch::StartsWith("rtagent: unknown subcommand 'verfy'; did you mean 'verify'?"));
  auto far = RtAgent("xyzzy");
  CHECK(far.code == 2);
  CHECK_THAT(far.out, Catch::Contains("the subcommands are validate, profiles, inspect"));
}

TEST_CASE("rtagent or rtagent import without a subcommand lists the ones it takes and exits 2", "[cli]") {
  auto none = RtAgent("");
  CHECK(none.code == 2);
  CHECK_THAT(none.out, Catch::StartsWith("rtagent: name a subcommand: validate, profiles, inspect, capture, plan, apply, "));
  CHECK_THAT(none.out, Catch::EndsWith("\n  hint: `rtagent --help` says what each does; `rtagent commission` runs the whole "
                                       "loop on this board\n"));
  auto after_root = RtAgent("--root /tmp");
  CHECK(after_root.code == 2);
  CHECK(after_root.out == none.out);
  auto import = RtAgent("import");
  CHECK(import.code == 2);
  CHECK(import.out == "rtagent import: name a subcommand: tuned\n  hint: `rtagent import --help` says what each does\n");
  // Other usage errors keep the parser's words.
  auto other = RtAgent("plan --no-such-option");
  CHECK(other.code == 2);
  CHECK_THAT(other.out, !Catch::Contains("name a subcommand"));
}

TEST_CASE("rtagent help SUBCOMMAND prints that subcommand's help", "[cli]") {
  auto h = RtAgent("help accept");
  CHECK(h.code == 0);
  CHECK_THAT(h.out, Catch::Contains("Run the loaded latency acceptance test"));
  CHECK_THAT(h.out, Catch::Contains("--baseline"));
  // The same text as `rtagent accept --help`.
  auto same = RtAgent("accept --help");
  CHECK(same.code == 0);
  CHECK(h.out == same.out);
  auto nested = RtAgent("help bench pi");
  CHECK(nested.code == 0);
  CHECK_THAT(nested.out, Catch::Contains("--periods"));
  auto all = RtAgent("help");
  CHECK(all.code == 0);
  CHECK_THAT(all.out, Catch::Contains("commission"));
  auto bad = RtAgent("help comision");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.out, Catch::StartsWith("rtagent: unknown subcommand 'comision'; did you mean 'commission'?"));
}

TEST_CASE("rtagent --version prints the version and the build", "[cli]") {
  auto v = RtAgent("--version");
  CHECK(v.code == 0);
  CHECK_THAT(v.out, Catch::Matches("rtagent [0-9]+\\.[0-9]+\\.[0-9]+ \\(build: [^)]+\\)\n"));
}
