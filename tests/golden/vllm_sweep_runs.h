// The vLLM runs of the corpus at $SERVESCOPE_CORPUS in the llm-d sweep's schema: reading the files,
// the command a run's "non-default args" dict describes, and the stand-in configs for checkpoints
// not bundled.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/golden/corpus.h"

namespace servescope::testing {

using nlohmann::json;

// Checkpoints whose config.json is not bundled but whose attention shape is a bundled model's.
struct StandIn {
  const char* model;
  const char* config;
  const char* why;
};
inline constexpr StandIn kStandIns[] = {
    {"RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic", "meta-llama/Llama-3.1-70B-Instruct",
     "Llama 3.3 70B keeps the Llama 3.1 70B architecture; fp8-dynamic quantizes weights only"},
    {"redhatai/Llama-3.3-70B-Instruct-quantized.w8a8", "meta-llama/Llama-3.1-70B-Instruct",
     "Llama 3.3 70B keeps the Llama 3.1 70B architecture; w8a8 quantizes weights only"},
    {"RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", "meta-llama/Llama-3.1-8B-Instruct",
     "a w8a8 quantization of Llama 3.1 8B"},
    {"RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "meta-llama/Llama-3.1-8B-Instruct",
     "a w4a16 quantization of Llama 3.1 8B"},
    {"RedHatAI/Qwen2.5-7B-Instruct-fp8-dynamic", "Qwen/Qwen2.5-7B-Instruct",
     "an fp8-dynamic quantization of Qwen2.5 7B"},
    {"RedHatAI/Qwen2.5-7B-Instruct-quantized.w8a8", "Qwen/Qwen2.5-7B-Instruct",
     "a w8a8 quantization of Qwen2.5 7B"},
    {"moonshotai/Kimi-Dev-72B", "Qwen/Qwen2.5-72B-Instruct",
     "Kimi-Dev-72B is a Qwen2.5-72B fine-tune (same architecture)"},
    {"ibm-granite/granite-3.1-8b-instruct", "ibm-granite/granite-3.3-8b-instruct",
     "Granite 3.3 8B keeps Granite 3.1 8B's decoder: 40 layers of 8 KV heads × 128 (the log's "
     "58.66 GiB / (24,027 blocks × 16) = 163,840 B per token = 40 × 8 × 128 × 2 × 2 B)"},
};

// Why a sweep model has no bundled config (data/models/SOURCES.md, "Still missing"): no verbatim
// copy of its published config.json was found, and no bundled config has its attention shape.
struct MissingConfig {
  const char* model;
  const char* why;
};
inline constexpr MissingConfig kMissingConfigs[] = {
    {"codellama/CodeLlama-7b-hf", "only re-saved or preset copies found"},
    {"google/gemma-2-2b-it", "only Python dicts and transformers 5 re-saves found"},
    {"google/gemma-2-27b-it", "only re-saves and a user-edited copy found"},
    {"google/gemma-7b", "only Python dicts and transformers 5 re-saves found"},
    {"google/gemma-3-4b-it", "no copy found"},
    {"google/gemma-3-12b-it", "no copy found"},
    {"google/gemma-3-27b-it", "only edited test configs found"},
    {"ibm-granite/granite-3.1-2b-instruct", "only trimmed test dicts found"},
    {"ibm-granite/granite-vision-3.3-2b", "no copy found"},
    {"mistralai/Mistral-Small-3.1-24B-Instruct-2503", "only dicts and a transformers 4.57 re-save"},
    {"RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-quantized.w8a8",
     "its base Mistral-Small-3.1 config is not bundled"},
    {"moonshotai/Kimi-VL-A3B-Instruct", "only reduced test fixtures found"},
    {"Qwen/Qwen1.5-MoE-A2.7B", "only trimmed dicts and the GPTQ chat variant's config found"},
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<json> read_jsonl(const std::string& name) {
  std::vector<json> out;
  std::istringstream lines(read_file(golden::corpus_dir() + "/" + name));
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty())
      out.push_back(json::parse(line));
  }
  return out;
}

// vLLM's "non-default args: {...}" (a Python dict repr) as JSON.
inline json non_default_args(const std::string& server_args) {
  const auto at = server_args.find("non-default args: {");
  if (at == std::string::npos)
    return json();
  std::string dict = server_args.substr(at + std::string("non-default args: ").size());
  dict = std::regex_replace(dict, std::regex("'"), "\"");
  dict = std::regex_replace(dict, std::regex("\\bTrue\\b"), "true");
  dict = std::regex_replace(dict, std::regex("\\bFalse\\b"), "false");
  dict = std::regex_replace(dict, std::regex("\\bNone\\b"), "null");
  return json::parse(dict, nullptr, false);
}

inline std::string dashes(std::string key) {
  for (char& c : key) {
    if (c == '_')
      c = '-';
  }
  return key;
}

// The command the args dict describes, as a user would type it.
inline std::string command_of(const json& args) {
  std::string cmd = "vllm serve " + args.value("model_tag", args.value("model", std::string()));
  for (auto it = args.begin(); it != args.end(); ++it) {
    const std::string& k = it.key();
    if (k == "model_tag" || k == "model")
      continue;
    if (it->is_boolean()) {
      cmd += (it->get<bool>() ? " --" : " --no-") + dashes(k);
    } else if (it->is_array()) {
      cmd += " --" + dashes(k);
      for (const json& v : *it)
        cmd += " " + (v.is_string() ? v.get<std::string>() : v.dump());
    } else if (it->is_string()) {
      cmd += " --" + dashes(k) + " " + it->get<std::string>();
    } else if (it->is_object()) {
      cmd += " --" + dashes(k) + " '" + it->dump() + "'";
    } else {
      cmd += " --" + dashes(k) + " " + it->dump();
    }
  }
  return cmd;
}

}  // namespace servescope::testing
