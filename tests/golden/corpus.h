// Where the golden tests find the real-log corpus: $SERVESCOPE_CORPUS, else ../shared/corpus
// beside the checkout. A missing corpus stops the test binary with one line: the golden tests
// never pass without the logs they are about.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace servescope::golden {

inline const std::string& corpus_dir() {
  static const std::string dir = [] {
    const char* env = std::getenv("SERVESCOPE_CORPUS");
    std::string d = env != nullptr && *env != '\0' ? env : SERVESCOPE_CORPUS_DIR;
    if (!std::filesystem::is_regular_file(d + "/cases.jsonl")) {
      std::fprintf(stderr,
                   "golden tests: no corpus at %s (cases.jsonl missing); set SERVESCOPE_CORPUS=DIR "
                   "or put the corpus at ../shared/corpus beside the checkout\n",
                   d.c_str());
      std::exit(1);
    }
    return d;
  }();
  return dir;
}

}  // namespace servescope::golden
