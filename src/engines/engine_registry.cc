#include <fmt/format.h>

#include "engines/engine.h"
#include "engines/sglang/sglang_engine.h"
#include "engines/vllm/vllm_engine.h"

namespace servescope {

const std::vector<std::unique_ptr<Engine>>& engines() {
  static const std::vector<std::unique_ptr<Engine>> kEngines = [] {
    std::vector<std::unique_ptr<Engine>> v;
    v.push_back(std::make_unique<sglang::SglangEngine>());
    v.push_back(std::make_unique<vllm::VllmEngine>());
    return v;
  }();
  return kEngines;
}

Result<const Engine*> find_engine(std::string_view name) {
  std::string names;
  for (const auto& e : engines()) {
    if (e->name() == name)
      return e.get();
    names += (names.empty() ? "" : ", ") + std::string(e->name());
  }
  return fail(fmt::format("--engine {}: unknown engine; modelled: {}", name, names));
}

LaunchRecognizer launch_recognizer(const Engine* engine) {
  LaunchRecognizer r;
  r.launches = [engine](const std::vector<std::string>& words) {
    return engine != nullptr ? engine->launches(words) : engine_for_command(words).ok();
  };
  r.image_entrypoint = [engine](std::string_view image) {
    if (engine != nullptr)
      return engine->image_entrypoint(image);
    for (const auto& e : engines()) {
      if (auto words = e->image_entrypoint(image); !words.empty())
        return words;
    }
    return std::vector<std::string>{};
  };
  return r;
}

Result<const Engine*> engine_for_command(const std::vector<std::string>& words) {
  for (const auto& e : engines()) {
    if (e->launches(words))
      return e.get();
  }
  return fail(
      "the launch command names no known engine program (python -m sglang.launch_server, sglang "
      "serve, vllm serve, python -m vllm.entrypoints.openai.api_server); pass --engine NAME");
}

}  // namespace servescope
