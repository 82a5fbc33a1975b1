// `docker run` / `podman run` / `nvidia-docker run` OPTIONS IMAGE [CMD...]: the image, the
// environment (-e, --env), the GPUs (--gpus) and the command the container runs (its CMD, or
// the image's entrypoint for the images whose entrypoint is the engine).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "intake/launch_input.h"

namespace servescope {

struct ContainerRun {
  std::string image;
  std::map<std::string, std::string> environment;
  std::optional<int> gpu_count;
  std::string gpu_source;            // "--gpus 2", "--gpus device=0,1"
  std::vector<std::string> command;  // what runs in the container, program first
  std::vector<std::string> notes;
};

/// Reads a container run starting at words[i]; nullopt when words[i] does not start one.
/// `engines` names the entrypoint of an image that runs an engine itself.
std::optional<ContainerRun> container_run(const std::vector<std::string>& words, std::size_t i,
                                          const LaunchRecognizer& engines);

}  // namespace servescope
