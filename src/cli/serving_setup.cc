#include "cli/serving_setup.h"

#include <fmt/format.h>

namespace servescope {

Result<std::unique_ptr<ServingSetup>> prepare_serving(const ScenarioOptions& options) {
  auto built = build_scenario(options);
  if (!built)
    return built.error();
  auto setup = std::make_unique<ServingSetup>();
  setup->built = std::move(*built);
  auto plan = setup->built.engine->plan(setup->built.scenario);
  if (!plan)
    return plan.error();
  setup->plan = std::move(*plan);
  setup->profile = setup->built.engine->twin_profile();
  if (setup->profile == nullptr)
    return fail(
        fmt::format("the {} engine pack has no twin profile yet; simulate and twin need one",
                    setup->built.engine->name()));
  return setup;
}

}  // namespace servescope
