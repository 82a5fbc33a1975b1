#include "intake/container_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "intake/launch_input.h"

namespace servescope {
namespace {

// docker run's options that take no value; every other option takes one (docker's CLI).
constexpr std::array<std::string_view, 24> kBooleanOptions = {"--rm",
                                                              "-d",
                                                              "--detach",
                                                              "-i",
                                                              "-t",
                                                              "--interactive",
                                                              "--tty",
                                                              "--privileged",
                                                              "--init",
                                                              "--read-only",
                                                              "-P",
                                                              "--publish-all",
                                                              "--no-healthcheck",
                                                              "--oom-kill-disable",
                                                              "--sig-proxy",
                                                              "-it",
                                                              "-ti",
                                                              "-itd",
                                                              "-dit",
                                                              "-id",
                                                              "-td",
                                                              "--quiet",
                                                              "-q",
                                                              "--disable-content-trust"};

bool boolean_option(std::string_view o) {
  return std::find(kBooleanOptions.begin(), kBooleanOptions.end(), o) != kBooleanOptions.end();
}

std::string base_name(const std::string& w) {
  const auto slash = w.rfind('/');
  return slash == std::string::npos ? w : w.substr(slash + 1);
}

// --gpus all | N | device=0,1 | "device=0,1"
std::optional<int> gpus_option(std::string value) {
  value.erase(std::remove(value.begin(), value.end(), '"'), value.end());
  if (value == "all" || value.empty())
    return std::nullopt;
  if (auto eq = value.find("device="); eq != std::string::npos)
    return gpus_in_visible_devices(value.substr(eq + 7));
  if (auto eq = value.find("count="); eq != std::string::npos)
    value = value.substr(eq + 6);
  if (!value.empty() &&
      std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::stoi(value.substr(0, 6));
  return std::nullopt;
}

}  // namespace

std::optional<ContainerRun> container_run(const std::vector<std::string>& words, std::size_t i,
                                          const LaunchRecognizer& engines) {
  if (i >= words.size())
    return std::nullopt;
  const std::string program = base_name(words[i]);
  if (program != "docker" && program != "podman" && program != "nvidia-docker")
    return std::nullopt;
  std::size_t k = i + 1;
  if (k < words.size() && words[k] == "container")
    ++k;
  if (k >= words.size() || words[k] != "run")
    return std::nullopt;
  ++k;
  ContainerRun out;
  std::string entrypoint;
  while (k < words.size() && words[k].size() > 1 && words[k][0] == '-') {
    std::string option = words[k], value;
    bool has_value = false;
    if (auto eq = option.find('='); eq != std::string::npos && option.rfind("--", 0) == 0) {
      value = option.substr(eq + 1);
      option.resize(eq);
      has_value = true;
      ++k;
    } else if (boolean_option(option)) {
      ++k;
      continue;
    } else if (option.size() > 2 && option[1] != '-' &&
               (option[1] == 'e' || option[1] == 'v' || option[1] == 'p' || option[1] == 'w')) {
      value = option.substr(2);  // -eKEY=VALUE
      option.resize(2);
      has_value = true;
      ++k;
    } else {
      if (k + 1 >= words.size())
        return std::nullopt;
      value = words[k + 1];
      has_value = true;
      k += 2;
    }
    if (!has_value)
      continue;
    if (option == "-e" || option == "--env") {
      const auto eq = value.find('=');
      if (eq != std::string::npos && eq > 0)
        out.environment[value.substr(0, eq)] = value.substr(eq + 1);
      else
        out.notes.push_back(
            fmt::format("{} {}: passed from the host's environment, not read", option, value));
    } else if (option == "--env-file") {
      out.notes.push_back(fmt::format("--env-file {}: not read", value));
    } else if (option == "--gpus") {
      out.gpu_count = gpus_option(value);
      if (out.gpu_count)
        out.gpu_source = "--gpus " + value;
      else
        out.notes.push_back(fmt::format("--gpus {}: every GPU of the host; give --gpus N", value));
    } else if (option == "--entrypoint") {
      entrypoint = value;
    }
  }
  if (k >= words.size())
    return std::nullopt;
  out.image = words[k++];
  out.command.assign(words.begin() + static_cast<std::ptrdiff_t>(k), words.end());
  std::vector<std::string> entry;
  if (!entrypoint.empty())
    entry = {entrypoint};
  else if (out.command.empty() || out.command.front().rfind("-", 0) == 0)
    entry = engines.entrypoint_of(out.image);
  if (!entry.empty()) {
    out.notes.push_back(fmt::format("the image's entrypoint: {}", fmt::join(entry, " ")));
    out.command.insert(out.command.begin(), entry.begin(), entry.end());
  }
  return out;
}

}  // namespace servescope
