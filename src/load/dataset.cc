#include "load/dataset.h"

#include <fmt/format.h>

#include <array>
#include <fstream>
#include <nlohmann/json.hpp>

#include "report/format.h"

namespace servescope {
namespace {

// Three-letter English words with a leading space: one token each in the GPT-2, Llama 3 and
// Qwen tokenizers' vocabularies (and 4 bytes, one token by the twin's count).
constexpr std::array<std::string_view, 64> kWords = {
    " the", " and", " for", " you", " are", " not", " was", " can", " all", " has", " one",
    " but", " her", " his", " any", " new", " out", " day", " get", " how", " man", " now",
    " old", " see", " two", " way", " who", " boy", " did", " its", " let", " put", " say",
    " she", " too", " use", " big", " few", " off", " own", " run", " set", " top", " far",
    " yes", " yet", " end", " why", " ask", " men", " try", " war", " car", " eye", " law",
    " age", " job", " sun", " air", " art", " bed", " box", " cup", " dog"};

std::int64_t estimate_tokens(const std::string& text) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>((text.size() + 3) / 4));
}

struct FileRow {
  std::string prompt;
  std::int64_t output = -1;  // -1: not given
  std::int64_t reply_estimate = -1;
};

// One JSONL row: ShareGPT {"conversations": [{"from": "human", "value": ...}, {"from": "gpt",
// ...}]} (also "messages" with role/content), or {"prompt": ..., "output_len": N}.
Result<FileRow> read_row(const nlohmann::json& j) {
  FileRow row;
  if (!j.is_object())
    return fail("a row is not a JSON object");
  if (j.contains("prompt")) {
    if (!j["prompt"].is_string())
      return fail("\"prompt\" is not a string");
    row.prompt = j["prompt"].get<std::string>();
    for (const char* key : {"output_len", "output_tokens", "max_tokens"}) {
      if (j.contains(key)) {
        if (!j[key].is_number_integer() || j[key].get<std::int64_t>() < 1)
          return fail(fmt::format("\"{}\" is not a positive integer", key));
        row.output = j[key].get<std::int64_t>();
      }
    }
    return row;
  }
  const char* list_key = j.contains("conversations") ? "conversations" : "messages";
  if (!j.contains(list_key) || !j[list_key].is_array())
    return fail("a row has neither \"prompt\" nor \"conversations\"");
  const auto& turns = j[list_key];
  int found = 0;
  for (const auto& t : turns) {
    if (!t.is_object())
      continue;
    const std::string who = t.value("from", t.value("role", std::string()));
    const auto text_it = t.contains("value") ? t.find("value") : t.find("content");
    if (text_it == t.end() || !text_it->is_string())
      continue;
    if (found == 0 && (who == "human" || who == "user")) {
      row.prompt = text_it->get<std::string>();
      found = 1;
    } else if (found == 1 && (who == "gpt" || who == "assistant")) {
      row.reply_estimate = estimate_tokens(text_it->get<std::string>());
      found = 2;
      break;
    }
  }
  if (found == 0)
    return fail("a conversation has no human turn");
  return row;
}

Result<std::vector<FileRow>> read_file_rows(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return fail(fmt::format("--dataset {}: cannot open the file", path));
  std::vector<FileRow> rows;
  std::string line;
  std::uint64_t number = 0;
  // A file that is one JSON array (ShareGPT's own shape) is read whole.
  if (in.peek() == '[') {
    nlohmann::json all = nlohmann::json::parse(in, nullptr, false);
    if (all.is_discarded() || !all.is_array())
      return fail(fmt::format("--dataset {}: not a JSON array or JSONL", path));
    for (const auto& j : all) {
      ++number;
      auto row = read_row(j);
      if (!row)
        continue;  // ShareGPT holds conversations without a human turn; they are skipped
      rows.push_back(std::move(*row));
    }
  } else {
    while (std::getline(in, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos)
        continue;
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded())
        return fail(fmt::format("--dataset {}:{}: not JSON; each line must be one JSON object",
                                path, number));
      auto row = read_row(j);
      if (!row)
        return fail(fmt::format("--dataset {}:{}: {}", path, number, row.message()));
      rows.push_back(std::move(*row));
    }
  }
  if (rows.empty())
    return fail(fmt::format("--dataset {}: no usable rows", path));
  return rows;
}

}  // namespace

std::string synthetic_prompt(std::int64_t tokens, Random& random) {
  std::string out;
  out.reserve(static_cast<std::size_t>(tokens) * 4);
  for (std::int64_t i = 0; i < tokens; ++i)
    out += kWords[static_cast<std::size_t>(random.next() % kWords.size())];
  return out;
}

std::vector<std::int32_t> synthetic_token_ids(std::int64_t tokens, Random& random) {
  std::vector<std::int32_t> out;
  out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(tokens, 0)));
  constexpr auto kSpan = static_cast<std::uint64_t>(kEndPromptId - kFirstPromptId);
  for (std::int64_t i = 0; i < tokens; ++i)
    out.push_back(kFirstPromptId + static_cast<std::int32_t>(random.next() % kSpan));
  return out;
}

Status parse_shared_prefix(std::string_view text, DatasetOptions& o) {
  const auto colon = text.find(':');
  std::int64_t n = 0, len = 0;
  const auto number = [](std::string_view part, std::int64_t& out) {
    if (part.empty() || part.size() > 9 ||
        part.find_first_not_of("0123456789") != std::string_view::npos)
      return false;
    out = std::stoll(std::string(part));
    return out >= 1;
  };
  if (colon == std::string_view::npos || !number(text.substr(0, colon), n) ||
      !number(text.substr(colon + 1), len))
    return fail(fmt::format(
        "--shared-prefix {}: expected N:LEN (N system prompts of LEN tokens, both ≥ 1), e.g. "
        "4:2000",
        text));
  o.shared_prefix_groups = n;
  o.shared_prefix_tokens = len;
  return ok_status();
}

namespace {

// The system prompts of --shared-prefix, from their own stream of the seed (so adding them
// leaves the rest of the prompts as they were).
void add_shared_prefixes(const DatasetOptions& o, Dataset& d) {
  Random random(o.seed ^ 0x5eedf00dULL);
  std::vector<std::vector<std::int32_t>> ids;
  std::vector<std::string> texts;
  for (std::int64_t g = 0; g < o.shared_prefix_groups; ++g) {
    if (o.token_ids)
      ids.push_back(synthetic_token_ids(o.shared_prefix_tokens, random));
    else
      texts.push_back(synthetic_prompt(o.shared_prefix_tokens, random));
  }
  for (std::size_t i = 0; i < d.items.size(); ++i) {
    PromptItem& item = d.items[i];
    // A conversation keeps one system prompt for all its turns.
    const std::size_t conversation =
        i / static_cast<std::size_t>(std::max<std::int64_t>(o.turns, 1));
    const std::size_t g = conversation % static_cast<std::size_t>(o.shared_prefix_groups);
    if (o.token_ids)
      item.token_ids.insert(item.token_ids.begin(), ids[g].begin(), ids[g].end());
    else
      item.prompt = texts[g] + item.prompt;
    item.input_tokens += o.shared_prefix_tokens;
    item.shared_prefix_tokens = o.shared_prefix_tokens;
  }
  d.description += fmt::format(" · {} shared system prompt{} of {} tokens", o.shared_prefix_groups,
                               o.shared_prefix_groups == 1 ? "" : "s", o.shared_prefix_tokens);
}

// --multi-turn: consecutive items become conversations of `turns` requests. A later turn's
// prompt is the previous turn's prompt, an answer of the previous turn's output length, then
// its own tokens — what a chat client re-sends. The engine's own answer is not returned as ids
// by the API, so the stand-in answer is not what the engine cached: a prefix-caching server
// finds the earlier prompts, not the answers.
void chain_turns(const DatasetOptions& o, Dataset& d) {
  Random random(o.seed ^ 0x7a1c5ULL);
  const auto turns = static_cast<std::size_t>(o.turns);
  for (std::size_t i = 0; i < d.items.size(); ++i) {
    PromptItem& item = d.items[i];
    item.turn = static_cast<std::int32_t>(i % turns);
    if (item.turn == 0)
      continue;
    const PromptItem& previous = d.items[i - 1];
    if (o.token_ids) {
      std::vector<std::int32_t> ids = previous.token_ids;
      const auto answer = synthetic_token_ids(previous.output_tokens, random);
      ids.insert(ids.end(), answer.begin(), answer.end());
      ids.insert(ids.end(), item.token_ids.begin(), item.token_ids.end());
      item.token_ids = std::move(ids);
    } else {
      item.prompt =
          previous.prompt + synthetic_prompt(previous.output_tokens, random) + item.prompt;
    }
    item.input_tokens += previous.input_tokens + previous.output_tokens;
  }
  d.description += fmt::format(" · conversations of {} turns (each re-sends its history)", turns);
}

}  // namespace

Result<Dataset> load_dataset(const DatasetOptions& o) {
  if (o.turns > 1 && o.source != "random")
    return fail("--multi-turn applies to synthetic prompts (--dataset random), not to --dataset " +
                o.source);
  if (o.shared_prefix_groups > 0 && o.source != "random")
    return fail(
        "--shared-prefix applies to synthetic prompts (--dataset random), not to "
        "--dataset " +
        o.source);
  Dataset d;
  Random random(o.seed);
  if (o.source == "random") {
    auto in = LengthSpec::parse(o.input_len, "--input-len");
    if (!in)
      return fail(in.message());
    const bool paired = in->kind() == LengthSpec::Kind::kFile && !o.output_len_given;
    auto out = paired ? in : LengthSpec::parse(o.output_len, "--output-len");
    if (!out)
      return fail(out.message());
    for (std::size_t i = 0; i < o.count; ++i) {
      PromptItem item;
      item.input_tokens = in->sample(random);
      item.output_tokens =
          std::max<std::int64_t>(1, paired ? in->sample(random, true) : out->sample(random, true));
      if (o.token_ids)
        item.token_ids = synthetic_token_ids(item.input_tokens, random);
      else
        item.prompt = synthetic_prompt(item.input_tokens, random);
      d.items.push_back(std::move(item));
    }
    d.description = fmt::format("random · input {} · output {}{}", in->describe(),
                                paired ? in->describe() : out->describe(),
                                o.token_ids ? "" : " · text prompts (token count approximate)");
    d.input_estimated = !o.token_ids;
    if (o.turns > 1)
      chain_turns(o, d);
    if (o.shared_prefix_groups > 0)
      add_shared_prefixes(o, d);
    return d;
  }
  auto rows = read_file_rows(o.source);
  if (!rows)
    return fail(rows.message());
  std::optional<LengthSpec> out;
  if (o.output_len_given) {
    auto spec = LengthSpec::parse(o.output_len, "--output-len");
    if (!spec)
      return fail(spec.message());
    out = *spec;
  }
  d.input_estimated = true;
  for (std::size_t i = 0; i < o.count; ++i) {
    const FileRow& row = (*rows)[i % rows->size()];
    PromptItem item;
    item.prompt = row.prompt;
    item.input_tokens = estimate_tokens(row.prompt);
    if (out) {
      item.output_tokens = out->sample(random, true);
    } else if (row.output > 0) {
      item.output_tokens = row.output;
    } else if (row.reply_estimate > 0) {
      item.output_tokens = row.reply_estimate;
      d.output_estimated = true;
    } else {
      item.output_tokens = 256;
      d.output_estimated = true;
    }
    d.items.push_back(std::move(item));
  }
  d.description = fmt::format("{} ({} rows){}", o.source,
                              with_thousands(static_cast<std::int64_t>(rows->size())),
                              out ? fmt::format(" · output {}", out->describe()) : "");
  return d;
}

}  // namespace servescope
