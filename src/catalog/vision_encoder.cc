#include "catalog/vision_encoder.h"

namespace servescope {
namespace {

// A column-parallel linear (its weight and bias split) followed by a row-parallel one (its weight
// split, its bias on every rank): the MLPs and attention of vLLM's vision blocks.
void column(VisionParams& p, double in, double out, bool bias) {
  p.sharded += in * out + (bias ? out : 0);
}
void row(VisionParams& p, double in, double out, bool bias) {
  p.sharded += in * out;
  p.replicated += bias ? out : 0;
}

// The merger after the blocks: `norm` params, then (hidden·merge²) → same → out, with biases
// (Qwen2-VL PatchMerger, Qwen2.5-VL Qwen2_5_VisionPatchMerger, Qwen3-VL Qwen3_VisionPatchMerger).
void merger(VisionParams& p, double norm, double merged, double out) {
  p.replicated += norm;
  column(p, merged, merged, true);
  row(p, merged, out, true);
}

// `depth` blocks of width `w`: two norms of `norm` parameters each, a fused qkv and a projection,
// then an MLP whose first layer is `mlp_in` wide (gate and up fused: twice the MLP width) and
// whose second maps `mlp_width` back to `w`, every linear with a bias.
void blocks(VisionParams& p, int depth, double w, double norm, double mlp_in, double mlp_width) {
  for (int b = 0; b < depth; ++b) {
    p.replicated += 2 * norm;
    column(p, w, 3 * w, true);
    row(p, w, w, true);
    column(p, w, mlp_in, true);
    row(p, mlp_width, w, true);
  }
}

// vLLM models/qwen2_vl.py Qwen2VisionTransformer: Conv3d patch embedding without bias,
// LayerNorm blocks with a fused qkv and a two-matrix MLP of embed_dim × mlp_ratio.
VisionParams qwen2_vl(const VisionDims& v) {
  VisionParams p;
  const double e = v.embed_dim, hidden = e * v.mlp_ratio;
  p.replicated += v.in_channels * v.temporal_patch_size * v.patch_size * v.patch_size * e;
  blocks(p, v.depth, e, 2 * e, hidden, hidden);  // LayerNorms: weight and bias
  const double merged = e * v.spatial_merge_size * v.spatial_merge_size;
  merger(p, 2 * e, merged, v.out_hidden_size);
  return p;
}

// models/qwen2_5_vl.py Qwen2_5_VisionTransformer: RMSNorm blocks, a gated MLP with biases.
VisionParams qwen2_5_vl(const VisionDims& v) {
  VisionParams p;
  const double h = v.hidden_size.value_or(0), i = v.intermediate_size;
  p.replicated += v.in_channels * v.temporal_patch_size * v.patch_size * v.patch_size * h;
  blocks(p, v.depth, h, h, 2 * i, i);  // RMSNorms: weight; gate_up_proj
  const double merged = h * v.spatial_merge_size * v.spatial_merge_size;
  merger(p, h, merged, v.out_hidden_size);
  return p;
}

// models/qwen3_vl.py Qwen3_VisionTransformer (also Qwen3.5's): Conv3d patch embedding with bias,
// learned position embeddings, LayerNorm blocks with a two-matrix MLP, a merger and one more
// merger per deepstack layer (its norm over the merged width).
VisionParams qwen3_vl(const VisionDims& v) {
  VisionParams p;
  const double h = v.hidden_size.value_or(0), i = v.intermediate_size;
  p.replicated += v.in_channels * v.temporal_patch_size * v.patch_size * v.patch_size * h + h;
  p.replicated += static_cast<double>(v.num_position_embeddings) * h;
  blocks(p, v.depth, h, 2 * h, i, i);
  const double merged = h * v.spatial_merge_size * v.spatial_merge_size;
  merger(p, 2 * h, merged, v.out_hidden_size);
  for (int d = 0; d < v.deepstack_layers; ++d)
    merger(p, 2 * merged, merged, v.out_hidden_size);
  return p;
}

// models/glm4_1v.py Glm4vVisionTransformer (GLM-4.1V/4.5V): Conv3d patch embedding with bias,
// RMSNorm blocks without biases whose gated MLP is out_hidden_size wide, learned position
// embeddings over (image_size / patch_size)^2 patches, a Conv2d downsample to out_hidden_size, and
// a merger (projection, LayerNorm, gated MLP of the config's intermediate_size).
VisionParams glm4v(const VisionDims& v) {
  VisionParams p;
  const double h = v.hidden_size.value_or(0), out = v.out_hidden_size, ctx = v.intermediate_size;
  p.replicated += v.in_channels * v.temporal_patch_size * v.patch_size * v.patch_size * h + h;
  for (int b = 0; b < v.depth; ++b) {
    p.replicated += 2 * h;
    column(p, h, 3 * h, false);
    row(p, h, h, false);
    column(p, h, 2 * out, false);
    row(p, out, h, false);
  }
  const double side = v.patch_size > 0 ? static_cast<double>(v.image_size / v.patch_size) : 0;
  p.replicated += side * side * h;  // position embeddings
  p.replicated += 2 * h;            // post_conv_layernorm, post_layernorm
  p.replicated += h * out * v.spatial_merge_size * v.spatial_merge_size + out;  // downsample
  column(p, out, out, false);                                                   // merger.proj
  p.replicated += 2 * out;  // merger.post_projection_norm
  column(p, out, 2 * ctx, false);
  row(p, ctx, out, false);
  return p;
}

}  // namespace

std::optional<VisionParams> vision_encoder_params(const VisionDims& v) {
  // Counted block by block: a depth no encoder has is a damaged config, left to the estimate.
  if (v.depth <= 0 || v.depth > 1024 || v.deepstack_layers > 1024)
    return std::nullopt;
  if (v.model_type == "qwen2_vl" && v.embed_dim > 0)
    return qwen2_vl(v);
  if (v.model_type == "qwen2_5_vl" && v.hidden_size)
    return qwen2_5_vl(v);
  if ((v.model_type == "glm4v" || v.model_type == "glm4v_moe") && v.hidden_size)
    return glm4v(v);
  if ((v.model_type == "qwen3_vl" || v.model_type == "qwen3_vl_moe" || v.model_type == "qwen3_5" ||
       v.model_type == "qwen3_5_moe") &&
      v.hidden_size)
    return qwen3_vl(v);
  return std::nullopt;
}

}  // namespace servescope
