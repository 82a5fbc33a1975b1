// Files under data/ compiled into the binary (see cmake/embed_data.cmake).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace servescope {

struct EmbeddedFile {
  std::string_view path;  // relative to data/, e.g. "models/Qwen--Qwen3-8B.json"
  std::string_view contents;
};

/// The files of data/ as built into the binary (cmake/embed_data.cmake).
const std::vector<EmbeddedFile>& built_in_files();

/// The data in effect: the built-in files, each replaced by (and new ones added from) the file of
/// the same relative path under $SERVESCOPE_DATA_DIR when that is set — a release's tables written
/// by `make engine-release` are used without rebuilding.
const std::vector<EmbeddedFile>& embedded_files();

/// Why $SERVESCOPE_DATA_DIR cannot be used ("" when it is unset or a readable folder).
std::string data_dir_error();

/// The contents of data/<path>, or nullptr when no such file was embedded.
const std::string_view* find_embedded_file(std::string_view path);

/// The rows of the CSV file data/<path> (header included). The data is part of the build, so a
/// file that is missing or does not parse is a build defect: std::logic_error naming it.
std::vector<std::vector<std::string>> embedded_csv(std::string_view path);

/// The data rows of the tab-separated file data/<path>: `#` comment lines and the header row left
/// out, each row split at tabs (views into the embedded bytes). Missing file: std::logic_error.
std::vector<std::vector<std::string_view>> embedded_tsv(std::string_view path);

/// The same rows of TSV text (for a file that may be absent, or text in hand).
std::vector<std::vector<std::string_view>> tsv_rows(std::string_view text);

}  // namespace servescope
