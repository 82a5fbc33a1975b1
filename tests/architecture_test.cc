// The map in ARCHITECTURE.md against the code: its ```layers block lists the src/ layers top
// first, one rank per line. Every #include of one layer by another must point strictly
// downward (a test file, *_test.cc, may use any layer to set up its case); every src/ folder must
// be on the map and carry a README.md; every layer on the map must exist.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace servescope::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = SERVESCOPE_SOURCE_DIR;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// layer -> rank (0 = the bottom), from ARCHITECTURE.md's ```layers block.
std::map<std::string, int> layer_ranks() {
  const std::string text = read(kRoot / "ARCHITECTURE.md");
  const auto start = text.find("```layers\n");
  if (start == std::string::npos)
    return {};
  const auto end = text.find("```", start + 10);
  std::vector<std::vector<std::string>> lines;
  std::istringstream block(text.substr(start + 10, end - start - 10));
  for (std::string line; std::getline(block, line);) {
    std::istringstream words(line);
    std::vector<std::string> rank;
    for (std::string w; words >> w;)
      rank.push_back(w);
    if (!rank.empty())
      lines.push_back(rank);
  }
  std::map<std::string, int> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    for (const std::string& layer : lines[i])
      out[layer] = static_cast<int>(lines.size() - 1 - i);
  }
  return out;
}

TEST(Architecture, TheMapListsEveryLayerAndEachHasAReadme) {
  const auto ranks = layer_ranks();
  ASSERT_GE(ranks.size(), 5u) << "ARCHITECTURE.md has no ```layers block";
  for (const auto& entry : fs::directory_iterator(kRoot / "src")) {
    if (!entry.is_directory())
      continue;
    const std::string layer = entry.path().filename().string();
    EXPECT_TRUE(ranks.count(layer)) << "src/" << layer << "/ is not on ARCHITECTURE.md's map";
    EXPECT_TRUE(fs::exists(entry.path() / "README.md")) << "src/" << layer << "/ has no README.md";
  }
  for (const auto& [layer, rank] : ranks)
    EXPECT_TRUE(fs::is_directory(kRoot / "src" / layer)) << "the map names src/" << layer << "/";
}

TEST(Architecture, EveryIncludeOfAnotherLayerPointsDown) {
  const auto ranks = layer_ranks();
  ASSERT_FALSE(ranks.empty());
  const std::regex include(R"re(^#include "([a-z_]+)/)re");
  int checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kRoot / "src")) {
    const fs::path& p = entry.path();
    const std::string name = p.filename().string();
    if (p.extension() != ".cc" && p.extension() != ".h")
      continue;
    if (name.size() > 8 && name.compare(name.size() - 8, 8, "_test.cc") == 0)
      continue;
    const std::string layer = fs::relative(p, kRoot / "src").begin()->string();
    const auto own = ranks.find(layer);
    if (own == ranks.end())
      continue;  // reported by the test above
    std::istringstream lines(read(p));
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
      ++n;
      std::smatch m;
      if (!std::regex_search(line, m, include))
        continue;
      const std::string target = m[1].str();
      const auto other = ranks.find(target);
      if (other == ranks.end() || target == layer)
        continue;
      ++checked;
      EXPECT_LT(other->second, own->second)
          << fs::relative(p, kRoot).string() << ":" << n << ": " << layer << "/ includes " << target
          << "/, which is not below it on ARCHITECTURE.md's map";
    }
  }
  EXPECT_GT(checked, 100);  // the scan saw the code
}

}  // namespace
}  // namespace servescope::testing
