// Nothing outside src/engines/ may know which engine it talks to (ARCHITECTURE.md, "Layers"). This
// test reads the sources of every other layer and fails on:
//   1. an #include of an engine pack ("engines/<engine>/..."),
//   2. an identifier naming an engine (sglang::, VllmEngine, is_vllm, ...), comments excepted,
//   3. a string literal that is an engine-specific token rather than prose: exactly an engine
//      name, or an engine name glued to more text ("vllm:num_requests_running",
//      "sglang.launch_server"), or any literal naming an engine that is compared or searched
//      for (`== "vllm serve"`, `find("sglang")`).
// Help text and messages ("e.g. vllm serve MODEL") are prose and stay allowed. The engine
// names come from the registry, so a new engine pack is covered without editing this test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/text.h"
#include "engines/engine.h"

namespace servescope::testing {
namespace {

namespace fs = std::filesystem;

struct Violation {
  std::string file;
  int line = 0;
  std::string what;
};

// Splits C++ source into code (comments and literals blanked, newlines kept) and the string
// literals with the line they start on and the code just before them.
struct Scanned {
  std::string code;
  struct Literal {
    std::string text;
    int line;
    std::string before;  // the last non-blank code characters before the literal
    std::string after;   // the first non-blank code characters after it
  };
  std::vector<Literal> literals;
};

Scanned scan(const std::string& src) {
  Scanned out;
  out.code.reserve(src.size());
  int line = 1;
  std::size_t i = 0;
  while (i < src.size()) {
    const char c = src[i];
    if (c == '\n') {
      ++line;
      out.code += c;
      ++i;
    } else if (src.compare(i, 2, "//") == 0) {
      while (i < src.size() && src[i] != '\n')
        ++i;
    } else if (src.compare(i, 2, "/*") == 0) {
      i += 2;
      while (i + 1 < src.size() && src.compare(i, 2, "*/") != 0) {
        if (src[i] == '\n') {
          ++line;
          out.code += '\n';
        }
        ++i;
      }
      i += 2;
    } else if (c == 'R' && i + 1 < src.size() && src[i + 1] == '"') {
      // Raw string R"delim( ... )delim"
      const std::size_t open = src.find('(', i);
      const std::string delim = ")" + src.substr(i + 2, open - i - 2) + "\"";
      const std::size_t close = src.find(delim, open);
      const std::string text = src.substr(open + 1, close - open - 1);
      out.literals.push_back(
          {text, line,
           std::string(trim(out.code.substr(out.code.size() > 24 ? out.code.size() - 24 : 0))),
           ""});
      for (char t : text) {
        if (t == '\n') {
          ++line;
          out.code += '\n';
        }
      }
      out.code += "\"\"";
      i = close + delim.size();
    } else if (c == '"' ||
               (c == '\'' && !(i > 0 && std::isalnum(static_cast<unsigned char>(src[i - 1]))))) {
      std::string text;
      std::size_t j = i + 1;
      while (j < src.size() && src[j] != c) {
        if (src[j] == '\\' && j + 1 < src.size()) {
          text += src[j + 1];
          j += 2;
          continue;
        }
        text += src[j++];
      }
      if (c == '"') {
        std::string before =
            std::string(trim(out.code.substr(out.code.size() > 24 ? out.code.size() - 24 : 0)));
        out.literals.push_back({text, line, before, ""});
      }
      out.code += c == '"' ? "\"\"" : "' '";
      i = j + 1;
    } else {
      out.code += c;
      ++i;
    }
  }
  // Fill in the code right after each literal (for `"vllm" ==`).
  std::size_t search = 0;
  for (auto& lit : out.literals) {
    const std::size_t at = out.code.find("\"\"", search);
    if (at == std::string::npos)
      break;
    search = at + 2;
    lit.after = std::string(trim(out.code.substr(search, 8)));
  }
  return out;
}

bool ends_with_any(const std::string& s, std::initializer_list<const char*> tails) {
  for (const char* t : tails) {
    const std::string tail(t);
    if (s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0)
      return true;
  }
  return false;
}

std::vector<Violation> check_source(const std::string& file, const std::string& src,
                                    const std::vector<std::string>& engines) {
  std::vector<Violation> out;
  const Scanned s = scan(src);
  // 1. #include of an engine pack (the include path is a literal).
  for (const auto& lit : s.literals) {
    for (const std::string& e : engines) {
      if (lit.text.rfind("engines/" + e + "/", 0) == 0)
        out.push_back({file, lit.line, "includes the " + e + " pack: " + lit.text});
    }
  }
  // 2. identifiers naming an engine.
  std::istringstream code(s.code);
  std::string text;
  int line = 0;
  while (std::getline(code, text)) {
    ++line;
    const std::string lower = to_lower(text);
    for (const std::string& e : engines) {
      for (std::size_t at = lower.find(e); at != std::string::npos; at = lower.find(e, at + 1)) {
        auto word = [&](std::size_t k) {
          return std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '_';
        };
        std::size_t b = at, f = at + e.size();
        while (b > 0 && word(b - 1))
          --b;
        while (f < text.size() && word(f))
          ++f;
        out.push_back({file, line, "identifier '" + text.substr(b, f - b) + "' names an engine"});
        at = f;
      }
    }
  }
  // 3. engine-specific string literals.
  for (const auto& lit : s.literals) {
    const std::string lower = to_lower(lit.text);
    for (const std::string& e : engines) {
      const std::size_t at = lower.find(e);
      if (at == std::string::npos || lit.text.rfind("engines/", 0) == 0)
        continue;
      const bool compared = ends_with_any(lit.before, {"==", "!=", "find(", "rfind(", "contains(",
                                                       "starts_with(", "ends_with(", "case"}) ||
                            lit.after.rfind("==", 0) == 0 || lit.after.rfind("!=", 0) == 0;
      const bool prose = lit.text.find_first_of(" \t\n") != std::string::npos;
      if (compared) {
        out.push_back({file, lit.line, "branches on \"" + lit.text + "\""});
      } else if (!prose) {
        out.push_back({file, lit.line, "engine-specific token \"" + lit.text + "\""});
      }
    }
  }
  return out;
}

std::vector<std::string> engine_names() {
  std::vector<std::string> out;
  for (const auto& e : engines())
    out.emplace_back(e->name());
  return out;
}

TEST(EngineBoundary, TheCheckerCatchesEachKindOfLeak) {
  const std::vector<std::string> names = {"sglang", "vllm"};
  auto count = [&](const std::string& src) { return check_source("x.cc", src, names).size(); };
  EXPECT_EQ(count("#include \"engines/vllm/vllm_flags.h\"\n"), 1u);
  EXPECT_EQ(count("if (plan.engine == \"vllm\") return 1;\n"), 1u);
  EXPECT_EQ(count("if (\"sglang\" != name) {}\n"), 1u);
  EXPECT_EQ(count("auto n = sglang::capacity_flags();\n"), 1u);
  EXPECT_EQ(count("bool is_vllm = true;\n"), 1u);
  EXPECT_EQ(count("const char* kMetric = \"vllm:num_requests_running\";\n"), 1u);
  EXPECT_EQ(count("if (cmd.find(\"vllm serve\") != npos) {}\n"), 1u);
  // Prose, comments and unrelated code pass.
  EXPECT_EQ(count("app.add_option(\"--engine\", e, \"sglang, vllm@0.19.0 (default: from the "
                  "command)\");\n"),
            0u);
  EXPECT_EQ(count("// SGLang prints GB computed with 1024^3\nint gib = 1;\n"), 0u);
  EXPECT_EQ(count("/* vllm\n sglang */ int x = 0;\n"), 0u);
  EXPECT_EQ(count("std::string s = R\"(vllm serve m)\";\n"), 0u);
}

TEST(EngineBoundary, NoEngineSpecificBranchOutsideEngines) {
  const std::vector<std::string> names = engine_names();
  ASSERT_GE(names.size(), 2u);
  const fs::path src = fs::path(SERVESCOPE_SOURCE_DIR) / "src";
  std::vector<Violation> all;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file())
      continue;
    const fs::path& p = entry.path();
    const std::string rel = fs::relative(p, src).generic_string();
    const std::string ext = p.extension().string();
    if (rel.rfind("engines/", 0) == 0 || (ext != ".cc" && ext != ".h"))
      continue;
    if (rel.size() > 8 && rel.compare(rel.size() - 8, 8, "_test.cc") == 0)
      continue;  // tests feed engine commands as data
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    ++files;
    for (auto& v : check_source(rel, ss.str(), names))
      all.push_back(std::move(v));
  }
  EXPECT_GT(files, 20);
  for (const Violation& v : all)
    ADD_FAILURE() << "src/" << v.file << ":" << v.line << ": " << v.what;
}

}  // namespace
}  // namespace servescope::testing
