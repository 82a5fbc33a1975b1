// What a run sends: prompts with the output length each asks for. Synthetic prompts of a
// target token count — by default a list of token ids (OpenAI completions' "prompt": [ids],
// SGLang's input_ids), so the server counts exactly that many; as text (words that are one
// token each in common tokenizers, but a tokenizer may merge or split them) only where ids
// cannot go (chat). Either is drawn at random so no two prompts share a cached prefix — or
// prompts from a JSONL file — ShareGPT conversations
// (the first human turn; the reply's length as the output length unless --output-len is
// given) or {"prompt": ..., "output_len": N}. Token counts of file prompts are estimated
// (4 bytes a token) before the run, never on the send path; the server's usage.prompt_tokens
// is what the report holds them against.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "twin/workload.h"

namespace servescope {

/// Synthetic token ids are drawn from [kFirstPromptId, kEndPromptId): below every vocabulary a
/// served model has (tiny test models have 512 entries, real ones 32k or more), and past the
/// low ids where tokenizers keep their special and control tokens (0..~100: <unk>, <s>, </s>,
/// <pad>, byte fallbacks of control characters).
inline constexpr std::int32_t kFirstPromptId = 100;
inline constexpr std::int32_t kEndPromptId = 500;

struct PromptItem {
  std::string prompt;                     // text (empty when token_ids carries the prompt)
  std::vector<std::int32_t> token_ids;    // synthetic id prompt (empty: send the text)
  std::int64_t input_tokens = 0;          // target (synthetic) or estimate (file); the whole prompt
  std::int64_t output_tokens = 0;         // requested max_tokens
  std::int64_t shared_prefix_tokens = 0;  // of input_tokens, the system prompt others share
  std::int32_t turn = 0;  // 0: a conversation's first request; k: its (k+1)-th, after item − 1
};

struct DatasetOptions {
  std::string source = "random";  // "random" or a JSONL file
  std::string input_len = "1024";
  std::string output_len = "256";
  bool output_len_given = false;  // --output-len was typed (overrides a file's lengths)
  std::uint64_t seed = 1;
  std::size_t count = 1000;  // items to prepare
  bool token_ids = true;     // synthetic prompts as token ids (false: text, for chat)
  // --shared-prefix N:LEN: every synthetic prompt starts with one of N system prompts of LEN
  // tokens (drawn in turn), then its own --input-len tokens; a prefix-caching server computes
  // each system prompt once. 0 groups: none.
  std::int64_t shared_prefix_groups = 0;
  std::int64_t shared_prefix_tokens = 0;
  // --multi-turn T: synthetic conversations of T requests; each turn re-sends the history (its
  // earlier prompts and, as tokens of their length, the answers) and adds --input-len tokens.
  std::int64_t turns = 1;
};

/// Parses --shared-prefix N:LEN (N ≥ 1 system prompts of LEN ≥ 1 tokens).
Status parse_shared_prefix(std::string_view text, DatasetOptions& options);

struct Dataset {
  std::vector<PromptItem> items;
  std::string description;  // "random · input 1024 · output 256", "sharegpt.jsonl (9,000 rows)"
  bool input_estimated = false;
  bool output_estimated = false;
};

/// Prepares `options.count` items (a file's rows are cycled or cut to that count).
Result<Dataset> load_dataset(const DatasetOptions& options);

/// A synthetic prompt of `tokens` words drawn from `random`.
std::string synthetic_prompt(std::int64_t tokens, Random& random);
/// A synthetic prompt of `tokens` ids in [kFirstPromptId, kEndPromptId) drawn from `random`.
std::vector<std::int32_t> synthetic_token_ids(std::int64_t tokens, Random& random);

}  // namespace servescope
