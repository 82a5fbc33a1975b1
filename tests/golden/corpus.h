// Where the golden tests find the real-log corpus: $SERVESCOPE_CORPUS (make test-golden sets it,
// scripts/test-golden.sh). A missing corpus stops the test binary with one line: the golden
// tests never pass without the logs they are about.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace servescope::golden {

inline const std::string& corpus_dir() {
  static const std::string dir = [] {
    const char* env = std::getenv("SERVESCOPE_CORPUS");
    const std::string d = env != nullptr ? env : "";
    if (!std::filesystem::is_regular_file(d + "/cases.jsonl")) {
      std::fprintf(stderr,
                   "golden tests: no corpus at '%s' (cases.jsonl missing); run them through make "
                   "test-golden or set SERVESCOPE_CORPUS=DIR\n",
                   d.c_str());
      std::exit(1);
    }
    return d;
  }();
  return dir;
}

}  // namespace servescope::golden
