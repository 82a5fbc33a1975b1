// Launch commands in YAML deployments, read with yaml-cpp: a docker compose file (services:
// image, entrypoint, command as a string or a list, environment as a map or a list, GPU
// device reservations) and Kubernetes manifests (Pod, Deployment, StatefulSet, Job, CronJob,
// LeaderWorkerSet, List; containers' command + args, env, nvidia.com/gpu limits).
#pragma once

#include <string_view>

#include "intake/launch_input.h"

namespace servescope {

enum class YamlKind { kNone, kCompose, kKubernetes };

/// What a YAML text holds; kNone for text that is not YAML of either kind.
YamlKind yaml_kind(std::string_view text);

Result<LaunchInput> launch_in_compose(std::string_view text, std::string_view name,
                                      const LaunchRecognizer& launches);
Result<LaunchInput> launch_in_kubernetes(std::string_view text, std::string_view name,
                                         const LaunchRecognizer& launches);

}  // namespace servescope
