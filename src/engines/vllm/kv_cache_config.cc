// V4.1–V4.5 and V5.1–V5.2: grouping the layers' KV specs, num_blocks, the fit check and
// auto-fit, and the two headline figures (vllm/v1/core/kv_cache_utils.py::get_kv_cache_groups,
// get_kv_cache_config_from_groups, get_kv_cache_configs, _report_kv_cache_config).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/units.h"
#include "engines/vllm/capacity_rules.h"
#include "engines/vllm/extensible_kv_cache.h"

namespace servescope::vllm {
namespace {

constexpr char kUtils[] = "vllm/v1/core/kv_cache_utils.py";

std::int64_t cdiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

struct Group {
  std::vector<int> layers;  // indices into the spec list
  LayerSpec spec;           // the group's (unified) spec
};

struct Grouping {
  enum class Kind { kNone, kUniform, kUniformType, kHybrid } kind = Kind::kNone;
  std::vector<Group> groups;
  std::vector<LayerSpec> specs;  // after page-size unification
  int padding_layers = 0;
  std::string why;
};

bool is_attention(SpecKind k) {
  return k == SpecKind::kFull || k == SpecKind::kMla || k == SpecKind::kMlaIndexer;
}

// The token-slot "type" of UniformTypeKVCacheSpecs.is_uniform_type.
std::string slot_type(const LayerSpec& s) {
  if (is_attention(s.kind))
    return "full";
  return fmt::format("{}:{}:{}:{}", static_cast<int>(s.kind), s.window, s.spec_blocks,
                     s.checkpoint_blocks);
}

// V4.1 get_kv_cache_groups.
Grouping group_layers(const std::vector<LayerSpec>& in, double threshold) {
  Grouping out;
  out.specs = in;
  if (in.empty()) {
    out.why = "No layer keeps KV (attention-free): no groups, num_blocks 1.";
    return out;
  }
  const std::string first = in.front().key();
  if (std::all_of(in.begin(), in.end(), [&](const LayerSpec& s) { return s.key() == first; })) {
    out.kind = Grouping::Kind::kUniform;
    Group g;
    g.spec = in.front();
    for (std::size_t i = 0; i < in.size(); ++i)
      g.layers.push_back(static_cast<int>(i));
    out.groups.push_back(g);
    out.why = fmt::format("Every layer has the same spec: one group of {} layers.", in.size());
    return out;
  }
  const std::string type = slot_type(in.front());
  const bool same_block = std::all_of(in.begin(), in.end(), [&](const LayerSpec& s) {
    return s.block_size == in.front().block_size;
  });
  if (same_block &&
      std::all_of(in.begin(), in.end(), [&](const LayerSpec& s) { return slot_type(s) == type; })) {
    out.kind = Grouping::Kind::kUniformType;
    Group g;
    g.spec = in.front();
    g.spec.page_bytes = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      g.layers.push_back(static_cast<int>(i));
      g.spec.page_bytes += in[i].page_bytes;
    }
    out.groups.push_back(g);
    out.why =
        "Same token-slot type, different shapes: one group whose page is the sum of the "
        "layers' pages (UniformTypeKVCacheSpecs).";
    return out;
  }
  // General hybrid: unify page sizes by scaling block sizes, bucket by spec, split buckets.
  out.kind = Grouping::Kind::kHybrid;
  std::int64_t max_page = 0;
  for (const LayerSpec& s : in)
    max_page = std::max(max_page, s.page_bytes);
  for (LayerSpec& s : out.specs) {
    if (s.page_bytes != max_page && s.page_bytes > 0 && max_page % s.page_bytes == 0) {
      const std::int64_t ratio = max_page / s.page_bytes;
      s.block_size *= ratio;
      s.page_bytes = max_page;
    }
  }
  std::vector<std::pair<std::string, std::vector<int>>> buckets;  // insertion order
  for (std::size_t i = 0; i < out.specs.size(); ++i) {
    const std::string k = out.specs[i].key();
    auto it =
        std::find_if(buckets.begin(), buckets.end(), [&](const auto& b) { return b.first == k; });
    if (it == buckets.end()) {
      buckets.push_back({k, {static_cast<int>(i)}});
    } else {
      it->second.push_back(static_cast<int>(i));
    }
  }
  std::size_t min_n = SIZE_MAX, max_n = 0;
  for (const auto& b : buckets) {
    min_n = std::min(min_n, b.second.size());
    max_n = std::max(max_n, b.second.size());
  }
  std::size_t group_size = min_n;
  if (static_cast<double>(max_n) < static_cast<double>(min_n) * threshold)
    group_size = max_n;
  for (const auto& b : buckets) {
    const std::size_t n = b.second.size();
    if (n % group_size != 0)
      out.padding_layers += static_cast<int>(group_size - n % group_size);
    const std::size_t num_groups = (n + group_size - 1) / group_size;
    for (std::size_t gi = 0; gi < num_groups; ++gi) {
      Group g;
      g.spec = out.specs[static_cast<std::size_t>(b.second.front())];
      for (std::size_t j = gi; j < n; j += num_groups)
        g.layers.push_back(b.second[j]);
      out.groups.push_back(g);
    }
  }
  out.why = fmt::format(
      "{} kinds of layer, {} to {} layers each: group size {} ({}), {} groups of one page per "
      "block.",
      buckets.size(), min_n, max_n, group_size,
      group_size == max_n && max_n != min_n
          ? fmt::format("the largest bucket, as {} < {} × {}", max_n, threshold, min_n)
          : fmt::format(
                "the smallest bucket{}",
                max_n != min_n ? fmt::format(", as {} ≥ {} × {}", max_n, threshold, min_n) : ""),
      out.groups.size());
  return out;
}

struct Sizing {
  std::int64_t max_model_len = 0;
  std::int64_t max_num_batched_tokens = 0;
  // Tokens scheduled but not yet settled that sliding-window and chunked-local groups keep:
  // max_num_batched_tokens, or from 0.30.0 one batch per concurrent step
  // (VllmConfig.max_in_flight_tokens).
  std::int64_t in_flight_tokens = 0;
  std::int64_t cp = 1;  // dcp × pcp
  std::string mamba_mode = "none";
};

// KVCacheSpec.max_memory_usage_bytes for one spec.
std::int64_t max_usage(const LayerSpec& s, const Sizing& z) {
  switch (s.kind) {
    case SpecKind::kFull:
    case SpecKind::kMla:
    case SpecKind::kMlaIndexer: {
      const std::int64_t len = z.cp > 1 ? cdiv(z.max_model_len, z.cp) : z.max_model_len;
      return cdiv(len, s.block_size) * s.page_bytes;
    }
    case SpecKind::kSlidingWindow: {
      const std::int64_t tokens = std::min(s.window - 1 + z.in_flight_tokens, z.max_model_len);
      return (cdiv(tokens, s.block_size) + 1) * s.page_bytes;
    }
    case SpecKind::kChunkedLocal: {
      const std::int64_t tokens = std::min(s.window + z.in_flight_tokens, z.max_model_len);
      return cdiv(tokens, s.block_size) * s.page_bytes;
    }
    case SpecKind::kMamba:
      if (z.mamba_mode == "all")
        return cdiv(z.max_model_len, s.block_size) * s.page_bytes;
      if (z.mamba_mode == "align")
        return s.page_bytes * (2 + s.spec_blocks + s.checkpoint_blocks);
      return s.page_bytes * (1 + s.spec_blocks);
  }
  return 0;
}

// A worker's view: the global groups restricted to its pipeline stage's layers.
std::vector<Group> project(const Grouping& gr, int first, int last) {
  std::vector<Group> out;
  for (const Group& g : gr.groups) {
    Group p;
    p.spec = g.spec;
    for (int l : g.layers) {
      const int layer = gr.specs[static_cast<std::size_t>(l)].layer;
      if (layer >= first && layer < last)
        p.layers.push_back(l);
    }
    if (gr.kind == Grouping::Kind::kUniformType) {
      p.spec.page_bytes = 0;
      for (int l : p.layers)
        p.spec.page_bytes += gr.specs[static_cast<std::size_t>(l)].page_bytes;
    }
    out.push_back(p);
  }
  return out;
}

std::size_t group_size_of(const std::vector<Group>& groups) {
  std::size_t n = 0;
  for (const Group& g : groups)
    n = std::max(n, g.layers.size());
  return n;
}

// _max_memory_usage_bytes_from_groups: what one request of max_model_len needs on a worker.
std::int64_t needed_bytes(const Grouping& gr, const std::vector<Group>& groups, const Sizing& z) {
  if (groups.empty())
    return 0;
  if (gr.kind == Grouping::Kind::kUniformType) {
    std::int64_t sum = 0;
    for (int l : groups.front().layers)
      sum += max_usage(gr.specs[static_cast<std::size_t>(l)], z);
    return sum;
  }
  const auto gs = static_cast<std::int64_t>(group_size_of(groups));
  const std::int64_t page = groups.front().spec.page_bytes;
  std::int64_t blocks = 0;
  for (const Group& g : groups)
    blocks += cdiv(max_usage(g.spec, z), page);
  return gs * page * blocks;
}

// UniformTypeKVCacheSpecs.max_memory_usage_bytes.
std::int64_t group_usage(const Grouping& gr, const Group& g, const Sizing& z) {
  if (gr.kind != Grouping::Kind::kUniformType)
    return max_usage(g.spec, z);
  std::int64_t pages = 0;
  for (int l : g.layers) {
    const LayerSpec& s = gr.specs[static_cast<std::size_t>(l)];
    pages = std::max(pages, cdiv(max_usage(s, z), s.page_bytes));
  }
  return pages * g.spec.page_bytes;
}

// get_max_concurrency_for_kv_cache_config: blocks one request of max_model_len needs.
std::int64_t blocks_per_request(const Grouping& gr, const std::vector<Group>& groups,
                                const Sizing& z) {
  const auto n = static_cast<std::int64_t>(group_size_of(groups));
  std::int64_t per_req = 0;
  for (const Group& g : groups)
    per_req += group_usage(gr, g, z);
  per_req *= n;
  const std::int64_t per_block = groups.front().spec.page_bytes * n;
  return cdiv(per_req, per_block);
}

// The largest max_model_len that fits (binary search of _estimate_max_model_len_from_groups).
std::int64_t fit_max_model_len(const Grouping& gr, const std::vector<Group>& groups, Sizing z,
                               std::int64_t available) {
  const std::int64_t original = z.max_model_len;
  z.max_model_len = 1;
  if (needed_bytes(gr, groups, z) > available)
    return 0;
  std::int64_t left = 1, right = original, result = 1;
  while (left <= right) {
    const std::int64_t mid = (left + right) / 2;
    z.max_model_len = mid;
    if (needed_bytes(gr, groups, z) <= available) {
      result = mid;
      left = mid + 1;
    } else {
      right = mid - 1;
    }
  }
  return result;
}

// distributed/utils.py::get_pp_indices: remainder layers go to the stages before the last.
std::vector<std::pair<int, int>> pp_stages(int layers, int pp) {
  std::vector<int> parts(static_cast<std::size_t>(pp), layers / pp);
  for (int i = 2; i < layers % pp + 2; ++i)
    parts[static_cast<std::size_t>(pp - i)] += 1;
  std::vector<std::pair<int, int>> out;
  int start = 0;
  for (int p : parts) {
    out.emplace_back(start, start + p);
    start += p;
  }
  return out;
}

// V2.9: the blocks the measured bytes hold, each layer's segment rounded to the 2 MiB granule
// (ExtensibleKVCache.blocks_within; utils/extensible_tensor.py::_MIN_GRANULARITY), at most the
// capacity. Regions: one per layer, or per shared tensor where groups alias them. Each worker
// fits its own stage's segments; the engine keeps the minimum over workers
// (kv_cache_planning.py::finalize_extensible_kv_cache).
std::vector<std::int64_t> segment_strides(const Grouping& gr, const std::vector<Group>& w) {
  std::vector<std::int64_t> strides;
  if (gr.kind == Grouping::Kind::kUniformType) {
    for (int l : w.front().layers)
      strides.push_back(gr.specs[static_cast<std::size_t>(l)].page_bytes);
  } else {
    strides.assign(group_size_of(w), gr.groups.front().spec.page_bytes);
  }
  return strides;
}

std::int64_t measured_blocks(PlanContext& ctx, const Grouping& gr,
                             const std::vector<std::vector<Group>>& workers,
                             std::int64_t capacity) {
  Derivation& g = ctx.graph();
  constexpr std::int64_t kGranule = 2 << 20;
  const auto measured = static_cast<std::int64_t>(g.value("measured_kv_cache_bytes").as_number());
  std::int64_t n = capacity;
  std::size_t segments = 0;
  for (const auto& w : workers) {
    const std::vector<std::int64_t> strides = segment_strides(gr, w);
    const std::int64_t fit = blocks_within(measured, strides, capacity, kGranule);
    if (fit <= n) {
      n = fit;
      segments = strides.size();
    }
  }
  const Node* bytes_node = g.find("measured_kv_cache_bytes");
  const bool estimated = bytes_node != nullptr && bytes_node->origin == Origin::kEstimate;
  g.add({"num_gpu_blocks",
         n,
         "blocks",
         "V2.9",
         fmt::format("{}The most blocks whose {} segments, each rounded up to 2 MiB, fit the "
                     "measured {} bytes{}{} (\"Memory after warmup: … {} KV cache blocks … fit "
                     "within the requested …\").",
                     estimated ? "~" : "", segments, measured,
                     workers.size() > 1 ? ", the minimum over pipeline stages" : "",
                     n == capacity ? ", capped at the capacity" : "", n),
         "vllm/v1/worker/extensible_kv_cache.py::ExtensibleKVCache.blocks_within",
         {"measured_kv_cache_bytes", "num_gpu_blocks.capacity", "kv_page_bytes"},
         estimated ? Origin::kEstimate : Origin::kDerived});
  return n;
}

// V2.9: an auto-fit max_model_len is redone on the measured blocks less the null block
// (kv_cache_planning.py::finalize_extensible_kv_cache, after_warmup=True).
void refit_after_warmup(PlanContext& ctx, const Grouping& gr,
                        const std::vector<std::vector<Group>>& workers, Sizing& z,
                        std::int64_t blocks) {
  const std::int64_t page = gr.groups.front().spec.page_bytes;
  const auto gs = static_cast<std::int64_t>(group_size_of(workers.front()));
  const std::int64_t per_block = gr.kind == Grouping::Kind::kUniformType ? page : page * gs;
  std::int64_t fit = z.max_model_len;
  for (const auto& w : workers)
    fit = std::min(fit, fit_max_model_len(gr, w, z, (blocks - 1) * per_block));
  if (fit <= 0 || fit == z.max_model_len)
    return;
  ctx.args.max_model_len = fit;
  z.max_model_len = fit;
  ctx.graph().add({"max_model_len",
                   fit,
                   "tokens",
                   "V2.9",
                   fmt::format("Auto-fit redone after warmup on the measured {} blocks.", blocks),
                   "vllm/v1/core/kv_cache_planning.py::finalize_extensible_kv_cache",
                   {"num_gpu_blocks", "kv_cache_groups"}});
}

}  // namespace

void resolve_kv_cache(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const Grouping gr = group_layers(ctx.specs, ctx.rules.hybrid_group_threshold);
  g.add({"kv_cache_groups",
         static_cast<std::int64_t>(gr.groups.size()),
         "groups",
         "V4.1",
         gr.why,
         std::string(kUtils) + "::get_kv_cache_groups",
         {"kv_layers", "kv_page_bytes", "block_size"}});
  if (gr.padding_layers > 0) {
    ctx.finding(Severity::kInfo, "kv-padding-layers", {},
                fmt::format("Add {} padding layers: equal-sized KV groups waste some memory",
                            gr.padding_layers),
                "V4.1", std::string(kUtils) + "::_get_kv_cache_groups_uniform_page_size");
  }
  Sizing z;
  z.max_model_len = a.max_model_len;
  z.max_num_batched_tokens = a.max_num_batched_tokens;
  // Async scheduling (on by default) overlaps two steps; pipeline parallelism keeps pp + 1.
  const std::int64_t batches = ctx.rules.in_flight_batches ? (a.pp <= 1 ? 2 : a.pp + 1) : 1;
  z.in_flight_tokens = batches * a.max_num_batched_tokens;
  z.cp = a.dcp * a.pcp;
  z.mamba_mode = a.mamba_cache_mode;

  // Workers differ only by pipeline stage here (calibration is per GPU).
  const int model_layers = ctx.scenario.model.num_layers;
  auto stages = pp_stages(model_layers, static_cast<int>(a.pp));
  stages.back().second += a.draft_layers;  // the drafter runs on the last stage
  std::vector<std::vector<Group>> workers;
  for (const auto& [first, last] : stages)
    workers.push_back(project(gr, first, last));

  const std::int64_t available =
      static_cast<std::int64_t>(g.value("available_kv_cache_memory_bytes").as_number());
  std::int64_t memory = available;
  if (gr.groups.empty()) {
    g.add({"num_gpu_blocks",
           std::int64_t{1},
           "blocks",
           "V4.2",
           "Attention-free model: one block.",
           std::string(kUtils) + "::get_kv_cache_config_from_groups",
           {"kv_cache_groups"}});
    return;
  }
  const std::int64_t page = gr.groups.front().spec.page_bytes;
  // V4.5 num_gpu_blocks_override: since #41069 it also rewrites the memory used by the checks.
  if (a.num_gpu_blocks_override && ctx.rules.override_rewrites_memory) {
    const auto gs = static_cast<std::int64_t>(group_size_of(workers.front()));
    const std::int64_t per_block = gr.kind == Grouping::Kind::kUniformType ? page : page * gs;
    memory = *a.num_gpu_blocks_override * per_block;
  }

  // V4.3 check / V4.4 auto-fit, per worker.
  if (memory <= 0) {
    ctx.refuse(
        "ValueError: No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine.");
    ctx.finding(Severity::kError, "no-kv-memory", {ctx.in.typed("gpu_memory_utilization")},
                fmt::format("weights, activations and the rest leave {:.2f} GiB for the KV cache",
                            static_cast<double>(available) / kGiB),
                "V4.3", std::string(kUtils) + "::_check_enough_kv_cache_memory");
    return;
  }
  // V19 (#52216, 2026-08-17): the auto-fit and the fit check leave out one block, the null block.
  std::int64_t fit_memory = memory;
  if (ctx.rules.fit_leaves_null_block) {
    const auto gs = static_cast<std::int64_t>(group_size_of(workers.front()));
    fit_memory -= gr.kind == Grouping::Kind::kUniformType ? page : page * gs;
  }
  if (a.auto_fit_max_model_len) {
    std::int64_t fit = a.max_model_len;
    for (const auto& w : workers)
      fit = std::min(fit, fit_max_model_len(gr, w, z, fit_memory));
    if (fit <= 0) {
      ctx.refuse(
          "ValueError: Cannot auto-fit max_model_len: not enough GPU memory available to serve "
          "even a single token.");
      return;
    }
    a.max_model_len = fit;
    z.max_model_len = fit;
    g.add({"max_model_len",
           fit,
           "tokens",
           "V4.4",
           fit < ctx.scenario.model.context_length
               ? fmt::format("Auto-fit: reduced from {} to {} to fit the KV memory.",
                             ctx.scenario.model.context_length, fit)
               : "Auto-fit: the full model context length fits.",
           std::string(kUtils) + "::_auto_fit_max_model_len",
           {"model.context_length", "available_kv_cache_memory_bytes", "kv_cache_groups"}});
  }
  for (const auto& w : workers) {
    const std::int64_t needed = needed_bytes(gr, w, z);
    if (needed > fit_memory) {
      std::int64_t estimate = a.max_model_len;
      for (const auto& w2 : workers)
        estimate = std::min(estimate, fit_max_model_len(gr, w2, z, fit_memory));
      g.add({"kv_bytes_per_request",
             needed,
             "bytes",
             "V4.3",
             "KV bytes one request of max_model_len needs on the worst worker.",
             std::string(kUtils) + "::_max_memory_usage_bytes_from_groups",
             {"max_model_len", "kv_cache_groups"}});
      g.add({"estimated_max_model_len",
             estimate,
             "tokens",
             "V4.3",
             "The longest context that fits (vLLM's binary search).",
             std::string(kUtils) + "::_estimate_max_model_len_from_groups",
             {"available_kv_cache_memory_bytes", "kv_bytes_per_request"}});
      const std::string error = fmt::format(
          "ValueError: To serve at least one request with the models's max seq len ({}), ({:.2f} "
          "GiB KV cache is needed, which is larger than the available KV cache memory ({:.2f} "
          "GiB). Based on the available memory, the estimated maximum model length is {}.",
          a.max_model_len, python_round(static_cast<double>(needed) / kGiB, 2),
          python_round(static_cast<double>(memory) / kGiB, 2), estimate);
      ctx.refuse(error);
      ctx.finding(Severity::kError, "max-model-len-does-not-fit", {ctx.in.typed("max_model_len")},
                  error, "V4.3", std::string(kUtils) + "::_check_enough_kv_cache_memory");
      break;
    }
  }

  // V4.2 num_blocks per worker, the minimum over workers, then the override.
  std::int64_t blocks = INT64_MAX;
  for (const auto& w : workers) {
    const auto gs = static_cast<std::int64_t>(group_size_of(w));
    std::int64_t b = 0;
    if (gr.kind == Grouping::Kind::kUniformType) {
      b = available / std::max<std::int64_t>(1, w.front().spec.page_bytes);
    } else if (gs > 0) {
      b = available / page / gs;
    }
    blocks = std::min(blocks, std::max<std::int64_t>(0, b));
  }
  const auto gs0 = static_cast<std::int64_t>(group_size_of(workers.front()));
  std::string why =
      gr.kind == Grouping::Kind::kUniformType
          ? fmt::format("available KV bytes {} // summed page {} bytes.", available,
                        workers.front().front().spec.page_bytes)
          : fmt::format("available KV bytes {} // page {} bytes // {} layers per group{}.",
                        available, page, gs0,
                        workers.size() > 1 ? ", the minimum over pipeline stages" : "");
  std::vector<std::string> inputs = {"available_kv_cache_memory_bytes", "kv_page_bytes",
                                     "kv_cache_groups", "arg.num_gpu_blocks_override"};
  if (a.num_gpu_blocks_override) {
    why = fmt::format("--num-gpu-blocks-override replaces the profiled {} blocks.", blocks);
    blocks = *a.num_gpu_blocks_override;
  }
  if (a.extensible_kv_cache) {
    // V2.9: the profile's figure is the capacity reserved in address space; warmup measures
    // what is committed (kv_cache_planning.py::finalize_extensible_kv_cache).
    g.add({"num_gpu_blocks.capacity", blocks, "blocks", "V2.9",
           "The address space reserved before warmup: " + why,
           std::string(kUtils) + "::get_kv_cache_config_from_groups", inputs});
    blocks = measured_blocks(ctx, gr, workers, blocks);
    if (a.auto_fit_max_model_len)
      refit_after_warmup(ctx, gr, workers, z, blocks);
  } else {
    g.add({"num_gpu_blocks", blocks, "blocks", "V4.2", why,
           std::string(kUtils) + "::get_kv_cache_config_from_groups", inputs});
  }
  g.add({"usable_gpu_blocks",
         std::max<std::int64_t>(0, blocks - 1),
         "blocks",
         "V4.2",
         "Block 0 is the null block.",
         "vllm/v1/core/block_pool.py::BlockPool.__init__",
         {"num_gpu_blocks"}});

  // V5.1 maximum concurrency, from the first worker's config (info_once).
  const std::vector<Group>& w0 = workers.front();
  const std::int64_t per_req = blocks_per_request(gr, w0, z);
  g.add({"blocks_per_request",
         per_req,
         "blocks",
         "V5.1",
         gr.groups.size() == 1
             ? fmt::format("cdiv(max_model_len {}, block {}) for every layer at once.",
                           a.max_model_len, gr.groups.front().spec.block_size)
             : "Σ over groups of each group's blocks for one request of max_model_len (windowed "
               "groups need only their window plus max_num_batched_tokens).",
         std::string(kUtils) + "::get_max_concurrency_for_kv_cache_config",
         {"max_model_len", "kv_cache_groups", "max_num_batched_tokens", "mamba_cache_mode"}});
  const double concurrency = static_cast<double>(blocks) / static_cast<double>(per_req);
  // The node holds the figure as vLLM prints it ({:.2f}); the token count uses the unrounded one.
  g.add({"maximum_concurrency",
         python_round(concurrency, 2),
         "x",
         "V5.1",
         fmt::format("num_blocks {} / blocks per request {} = {:.6f}, printed {:.2f}x.", blocks,
                     per_req, concurrency, concurrency),
         std::string(kUtils) + "::get_max_concurrency_for_kv_cache_config",
         {"num_gpu_blocks", "blocks_per_request"}});

  // After init vLLM sets cache_config.block_size to the least block of the groups
  // (EngineCore._initialize_kv_caches); a mamba group's block is max_model_len without prefix
  // caching (mamba cache mode none), so a hybrid can report less than its attention block.
  std::int64_t min_block = INT64_MAX;
  for (const Group& gp : w0) {
    const bool whole_request = gp.spec.kind == SpecKind::kMamba && z.mamba_mode == "none";
    min_block = std::min(min_block, whole_request ? std::min(gp.spec.block_size, z.max_model_len)
                                                  : gp.spec.block_size);
  }
  g.add({"block_size.reported",
         min_block,
         "tokens",
         "V5.2",
         "The least block of the KV cache groups (a mamba group's is max_model_len without prefix "
         "caching): the block size vLLM reports after start-up.",
         "vllm/v1/engine/core.py::EngineCore._initialize_kv_caches",
         {"block_size", "max_model_len", "mamba_cache_mode"}});

  // V5.2 GPU KV cache size, in the formula of this version.
  std::int64_t tokens = 0;
  std::string tokens_why;
  if (ctx.rules.kv_tokens == KvTokensFormula::kConcurrencyTimesLen) {
    tokens = static_cast<std::int64_t>(concurrency * static_cast<double>(a.max_model_len));
    tokens_why = fmt::format(
        "int(maximum_concurrency × max_model_len {}) (#41069, since "
        "2026-04-28).",
        a.max_model_len);
  } else {
    tokens = blocks / static_cast<std::int64_t>(w0.size()) * min_block;
    if (z.cp > 1)
      tokens *= z.cp;
    tokens_why = fmt::format(
        "num_blocks {} // {} groups × smallest block {}{} (the formula "
        "before #41069, 2026-04-28).",
        blocks, w0.size(), min_block, z.cp > 1 ? fmt::format(" × dcp·pcp {}", z.cp) : "");
  }
  // The bytes one reported token costs on this GPU: a set of one block per group holds the
  // smallest block's tokens (the pre-#41069 formula's unit), every layer included.
  {
    const std::int64_t per_block =
        gr.kind == Grouping::Kind::kUniformType ? w0.front().spec.page_bytes : page * gs0;
    g.add({"kv_bytes_per_token",
           static_cast<double>(per_block) * static_cast<double>(w0.size()) /
               static_cast<double>(min_block),
           "bytes/token",
           "V4.2",
           fmt::format("{} bytes per block × {} group(s) / {} tokens per block.", per_block,
                       w0.size(), min_block),
           std::string(kUtils) + "::get_kv_cache_config_from_groups",
           {"kv_page_bytes", "kv_cache_groups", "block_size"}});
  }
  g.add({"gpu_kv_cache_size_tokens",
         tokens,
         "tokens",
         "V5.2",
         tokens_why,
         std::string(kUtils) + "::_report_kv_cache_config",
         {"num_gpu_blocks", "maximum_concurrency", "kv_cache_groups", "max_model_len"}});
}

}  // namespace servescope::vllm
