// A launch command as users have it — shell text, a systemd unit, a docker compose service, a
// Kubernetes manifest, a `docker run` line — reduced to what the engine packs parse: the
// engine's argv (program first), the environment it runs with, the GPUs the deployment gives
// it, and where each of those was read. Engine-neutral: the caller says which argv launches an
// engine (ARCHITECTURE.md, layer intake/).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace servescope {

/// What the engine packs tell the intake layer: whether words (program first) launch an
/// engine, and the command an image runs when it is the engine's own (an image whose
/// entrypoint is the server takes the words after it as flags).
struct LaunchRecognizer {
  std::function<bool(const std::vector<std::string>&)> launches;
  std::function<std::vector<std::string>(std::string_view image)> image_entrypoint;

  bool operator()(const std::vector<std::string>& words) const {
    return launches && launches(words);
  }
  std::vector<std::string> entrypoint_of(std::string_view image) const {
    return image_entrypoint ? image_entrypoint(image) : std::vector<std::string>{};
  }
};

struct LaunchInput {
  std::vector<std::string> argv;                   // the engine command, program first
  std::map<std::string, std::string> environment;  // VAR=value read anywhere above it
  std::optional<int> gpu_count;    // CUDA_VISIBLE_DEVICES, docker --gpus, nvidia.com/gpu limits
  std::string gpu_count_source;    // what gave gpu_count
  std::string image;               // container image, e.g. "lmsysorg/sglang:v0.5.4.post1-cu126"
  std::string image_version;       // the engine release the image tag names ("0.5.4.post1"), or ""
  std::string origin;              // "deploy/sglang.service:7, ExecStart", "command line"
  std::vector<std::string> notes;  // what was read and how, one line each, for the output
};

/// Reads the launch command from the words of one simple command: strips a shell prompt,
/// VAR=value prefixes, env, sudo, nohup, exec, time, nice, numactl, taskset, uv run,
/// conda run, `sh -c 'TEXT'`, and `docker|podman run OPTIONS IMAGE CMD...`. Returns nullopt
/// when what is left does not launch an engine.
std::optional<LaunchInput> launch_in_words(const std::vector<std::string>& words,
                                           const LaunchRecognizer& launches);

/// The launch command in shell text (a script, a pasted terminal line, a README block):
/// `export VAR=value` lines before it join its environment; the first simple command that
/// launches an engine wins. `origin` names the text ("run.sh"); lines are appended to it.
Result<LaunchInput> launch_in_shell_text(std::string_view text, std::string_view origin,
                                         const LaunchRecognizer& launches);

/// The launch command in a file of any kind above, chosen by its content (a systemd unit, a
/// compose file, a Kubernetes manifest, else shell text). Fails with one line naming the file
/// and what it lacks.
Result<LaunchInput> read_launch_file(const std::string& path, const LaunchRecognizer& launches);

/// The same, from text already read (`name` stands for the file in messages).
Result<LaunchInput> read_launch_text(std::string_view text, std::string_view name,
                                     const LaunchRecognizer& launches);

/// An environment file's variables (VAR=value lines, `export` allowed, comments and blank lines
/// skipped, values unquoted as the shell would), or nullopt when some line is not an assignment.
std::optional<std::map<std::string, std::string>> environment_in_text(std::string_view text);

/// A file of the engine's flags alone (one line or many, no program), as words; nullopt when
/// the first word is not a flag.
std::optional<std::vector<std::string>> flags_in_text(std::string_view text);

/// The engine release a container image tag names: "lmsysorg/sglang:v0.5.4.post1-rocm700-mi30x"
/// → "0.5.4.post1", "vllm/vllm-openai:v0.10.1.1" → "0.10.1.1"; "" for latest, nightly or a
/// digest.
std::string version_from_image(std::string_view image);

/// Sets input.gpu_count from CUDA_VISIBLE_DEVICES (or HIP_VISIBLE_DEVICES) in its environment,
/// unless something else (docker --gpus, a GPU limit) already gave it.
void count_visible_gpus(LaunchInput& input);

/// GPUs a CUDA_VISIBLE_DEVICES value names ("0,2" → 2), or nullopt for an empty or unusual one.
std::optional<int> gpus_in_visible_devices(std::string_view value);

}  // namespace servescope
