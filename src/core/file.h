// Reading whole files: the one place the tool touches the filesystem for inputs.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace servescope {

/// The contents of a regular file, or an error naming the path.
Result<std::string> read_file(const std::string& path);
bool is_regular_file(const std::string& path);
bool is_directory(const std::string& path);

}  // namespace servescope
