// The tests' main: the profile language is completed (the tuners' and checks' own keys) as
// rtagent's main does, then Catch2 runs.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "check/check.h"

int main(int argc, char** argv) {
  rtagent::check::DeclareProfileLanguage();
  return Catch::Session().run(argc, argv);
}
