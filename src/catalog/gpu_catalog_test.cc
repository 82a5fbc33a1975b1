#include "catalog/gpu_catalog.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

TEST(GpuCatalog, FindsByKey) {
  auto m = GpuCatalog::builtin().find("rtx-pro-6000");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->spec->memory_mib, 97887);
  EXPECT_EQ(m->spec->cc_major, 12);
  EXPECT_EQ(m->spec->cc_minor, 0);
  EXPECT_DOUBLE_EQ(m->spec->mem_bw_tbps, 1.597);
}

TEST(GpuCatalog, FindsByFullNvidiaSmiName) {
  auto m = GpuCatalog::builtin().find("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->spec->key, "h100-sxm");
  EXPECT_EQ(m->spec->memory_mib, 81559);
}

// The China-market Hopper and Ampere parts common in published DeepSeek logs: their names do
// not carry H100's suffix, and their NVLink is cut to 400 GB/s.
TEST(GpuCatalog, FindsTheChinaMarketPartsByTheirOwnNames) {
  auto h800 = GpuCatalog::builtin().find("NVIDIA H800");
  ASSERT_TRUE(h800);
  EXPECT_EQ(h800->spec->key, "h800");
  EXPECT_EQ(h800->spec->memory_mib, 81559);
  EXPECT_DOUBLE_EQ(h800->spec->interconnect_gbps, 400);
  auto a800 = GpuCatalog::builtin().find("NVIDIA A800-SXM4-80GB");
  ASSERT_TRUE(a800);
  EXPECT_EQ(a800->spec->key, "a800-80gb");
  EXPECT_EQ(a800->spec->cc_major, 8);
  auto t4 = GpuCatalog::builtin().find("Tesla T4");
  ASSERT_TRUE(t4);
  EXPECT_EQ(t4->spec->memory_mib, 15360);
}

TEST(GpuCatalog, FindsOldDriverNamesWithoutVendorPrefix) {
  auto m = GpuCatalog::builtin().find("A100-SXM4-40GB");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->spec->key, "a100-40gb");
}

TEST(GpuCatalog, FindsNamesCutShortByTheDefaultTable) {
  auto h100 = GpuCatalog::builtin().find("NVIDIA H100 80G...");
  ASSERT_TRUE(h100);
  EXPECT_EQ(h100->spec->key, "h100-sxm");
  EXPECT_TRUE(h100->note.empty());
  auto pro = GpuCatalog::builtin().find("NVIDIA RTX PRO 6000 Blac...");
  ASSERT_TRUE(pro);
  EXPECT_EQ(pro->spec->key, "rtx-pro-6000");
  EXPECT_NE(pro->note.find("rtx-pro-6000-ws"), std::string::npos) << "ambiguity is reported";
}

TEST(GpuCatalog, AmdRowsHaveNoCudaCapability) {
  auto m = GpuCatalog::builtin().find("mi300x");
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->spec->is_amd);
  EXPECT_EQ(m->spec->compute_capability, "gfx942");
}

TEST(GpuCatalog, UnknownNameListsClosestKeys) {
  auto m = GpuCatalog::builtin().find("h100");
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("h100-sxm"), std::string::npos) << m.message();
  EXPECT_EQ(m.message().find('\n'), std::string::npos);
}

TEST(GpuCatalog, RejectsMalformedCsv) {
  EXPECT_FALSE(GpuCatalog::parse("key,smi_name\nx,y\n"));
  auto bad_number = GpuCatalog::parse(
      "key,smi_name,memory_mib,compute_capability,arch,mem_bw_tbps,bf16_dense_tflops,fp8_dense_"
      "tflops,"
      "fp4_dense_tflops,interconnect,interconnect_gbps,tdp_w,source_note\n"
      "g,G,lots,9.0,Hopper,1,1,1,,x,1,1,n\n");
  ASSERT_FALSE(bad_number);
  EXPECT_NE(bad_number.message().find("line 2"), std::string::npos) << bad_number.message();
}

TEST(GpuCatalog, EveryRowHasASourceNote) {
  for (const GpuSpec& g : GpuCatalog::builtin().gpus())
    EXPECT_FALSE(g.source_note.empty()) << g.key;
  EXPECT_GE(GpuCatalog::builtin().gpus().size(), 30u);
}

}  // namespace
}  // namespace servescope

namespace servescope {
namespace {

// A log's free memory narrows the GPU to the smallest catalog class that holds it.
TEST(GpuCatalog, AMemoryFigureNarrowsTheGpuToOneMemoryClass) {
  auto keys = [](const std::vector<GpuSpec>& gpus) {
    std::vector<std::string> out;
    for (const GpuSpec& g : gpus)
      out.push_back(g.key);
    return out;
  };
  // 78.81 GiB free before the load: the 80 GB class (H100, A100 80GB, …), never a 141 GB H200.
  const std::vector<std::string> eighty = keys(gpus_holding(78.81, true));
  ASSERT_FALSE(eighty.empty());
  EXPECT_NE(std::find(eighty.begin(), eighty.end(), "h100-sxm"), eighty.end());
  EXPECT_NE(std::find(eighty.begin(), eighty.end(), "a100-80gb"), eighty.end());
  EXPECT_EQ(std::find(eighty.begin(), eighty.end(), "h200"), eighty.end());
  // 23.2 GiB free fits a 24 GB card; 200 GiB free no catalog GPU.
  const std::vector<std::string> small = keys(gpus_holding(23.2, true));
  EXPECT_NE(std::find(small.begin(), small.end(), "rtx-4090"), small.end());
  for (const GpuSpec& g : gpus_holding(23.2, true))
    EXPECT_LE(g.memory_mib, 25 * 1024) << g.key;
  EXPECT_TRUE(gpus_holding(400, true).empty());
  // A free figure must leave room for the CUDA context; a device total need not.
  const GpuSpec& h100 = *GpuCatalog::builtin().find("h100-sxm")->spec;
  const double total = static_cast<double>(h100.memory_mib) / 1024.0;
  const std::vector<std::string> by_total = keys(gpus_holding(total - 0.01, false));
  EXPECT_NE(std::find(by_total.begin(), by_total.end(), "h100-sxm"), by_total.end());
  const std::vector<std::string> by_free = keys(gpus_holding(total - 0.01, true));
  EXPECT_EQ(std::find(by_free.begin(), by_free.end(), "h100-sxm"), by_free.end());
}

}  // namespace
}  // namespace servescope
