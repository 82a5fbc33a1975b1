#include "report/given_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace servescope {

std::string render_given_command(const GivenCommand& given) {
  std::string out = fmt::format("\ncommand from {}\n", given.origin);
  if (!given.input.argv.empty())
    out += fmt::format("  {}\n", fmt::join(given.input.argv, " "));
  for (const auto& [name, value] : given.input.environment)
    out += fmt::format("  env {}={}\n", name, value);
  if (!given.merge.filled.empty())
    out +=
        fmt::format("  adds what the log does not show: {}\n", fmt::join(given.merge.filled, ", "));
  for (const std::string& c : given.merge.contradictions)
    out += "  ! disagrees with the log: " + c + "\n";
  if (given.merge.contradictions.empty())
    out += "  agrees with every setting the log shows\n";
  return out;
}

nlohmann::json given_command_to_json(const GivenCommand& given) {
  return {{"origin", given.origin},
          {"argv", given.input.argv},
          {"environment", given.input.environment},
          {"filled", given.merge.filled},
          {"contradictions", given.merge.contradictions}};
}

}  // namespace servescope
