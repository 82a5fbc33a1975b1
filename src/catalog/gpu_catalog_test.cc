#include "catalog/gpu_catalog.h"

#include <gtest/gtest.h>

#include <set>

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

// A GPU the catalog lacks is never replaced by the catalog GPU whose name it resembles: the
// error names the near-match and what the difference in the name means.
TEST(GpuCatalog, AnUnknownNameNamesItsNearMatchAndWhatDiffers) {
  auto only_4090 = GpuCatalog::parse(
      "key,smi_name,memory_mib,compute_capability,arch,mem_bw_tbps,bf16_dense_tflops,fp8_dense_"
      "tflops,fp4_dense_tflops,interconnect,interconnect_gbps,tdp_w,integrated,mig,source_note\n"
      "rtx-4090,NVIDIA GeForce RTX 4090,24564,8.9,Ada,1.008,165.2,330.3,,PCIe,64,450,0,,n\n");
  ASSERT_TRUE(only_4090) << only_4090.message();
  auto d = only_4090->find("NVIDIA GeForce RTX 4090 D");
  ASSERT_FALSE(d) << "never silently the 4090";
  EXPECT_NE(d.message().find("rtx-4090"), std::string::npos) << d.message();
  EXPECT_NE(d.message().find("fewer SMs"), std::string::npos) << d.message();
  EXPECT_NE(d.message().find("same memory"), std::string::npos) << d.message();
  EXPECT_EQ(d.message().find('\n'), std::string::npos);

  // In the built-in catalog both exist, by any spelling of the name.
  const GpuCatalog& c = GpuCatalog::builtin();
  for (std::string_view name :
       {"NVIDIA GeForce RTX 4090 D", "RTX 4090 D", "GeForce RTX 4090 D",
        "NVIDIA_GeForce_RTX_4090_D", "device_name=NVIDIA_GeForce_RTX_4090_D"}) {
    auto m = c.find(name);
    ASSERT_TRUE(m) << name << ": " << m.message();
    EXPECT_EQ(m->spec->key, "rtx-4090-d") << name;
  }
  EXPECT_EQ(c.find("RTX 4090")->spec->key, "rtx-4090");
  EXPECT_LT(c.find("rtx-4090-d")->spec->bf16_dense_tflops,
            c.find("rtx-4090")->spec->bf16_dense_tflops);

  auto laptop = c.find("NVIDIA GeForce RTX 4090 Laptop GPU");
  ASSERT_FALSE(laptop);
  EXPECT_NE(laptop.message().find("rtx-4090 "), std::string::npos) << laptop.message();
  EXPECT_NE(laptop.message().find("laptop GPU"), std::string::npos) << laptop.message();
  auto h20e = c.find("NVIDIA H20-3e");
  ASSERT_FALSE(h20e);
  EXPECT_NE(h20e.message().find("h20 "), std::string::npos) << h20e.message();
  EXPECT_NE(h20e.message().find("HBM3e"), std::string::npos) << h20e.message();
  // Not near: another model number.
  EXPECT_TRUE(c.near_matches("NVIDIA GeForce RTX 4060").empty());
}

// nvidia-smi's table cuts only names longer than its column: "NVIDIA GeForce RTX 4090 ..." is
// neither the 4090 nor the 4090 D (both names fit), but e.g. the 4090 Laptop GPU.
TEST(GpuCatalog, ACutNameOnlyMatchesNamesLongEnoughToHaveBeenCut) {
  const GpuCatalog& c = GpuCatalog::builtin();
  auto m = c.find("NVIDIA GeForce RTX 4090 ...");
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("rtx-4090-d"), std::string::npos) << m.message();
  EXPECT_NE(m.message().find("cut short"), std::string::npos) << m.message();
  auto super = c.find("NVIDIA GeForce RTX 4080 ...");
  ASSERT_TRUE(super) << super.message();
  EXPECT_EQ(super->spec->key, "rtx-4080-super");
  auto ada = c.find("NVIDIA RTX 6000 Ada Gene...");
  ASSERT_TRUE(ada);
  EXPECT_EQ(ada->spec->key, "rtx-6000-ada");
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
      "fp4_dense_tflops,interconnect,interconnect_gbps,tdp_w,integrated,mig,source_note\n"
      "g,G,lots,9.0,Hopper,1,1,1,,x,1,1,0,,n\n");
  ASSERT_FALSE(bad_number);
  EXPECT_NE(bad_number.message().find("line 2"), std::string::npos) << bad_number.message();
}

TEST(GpuCatalog, EveryRowHasASourceNote) {
  for (const GpuSpec& g : GpuCatalog::builtin().gpus())
    EXPECT_FALSE(g.source_note.empty()) << g.key;
  EXPECT_GE(GpuCatalog::builtin().gpus().size(), 70u);
}

// The old 13-column layout is refused by name, not read shifted.
TEST(GpuCatalog, RejectsTheLayoutWithoutIntegratedAndMig) {
  auto old = GpuCatalog::parse(
      "key,smi_name,memory_mib,compute_capability,arch,mem_bw_tbps,bf16_dense_tflops,fp8_dense_"
      "tflops,fp4_dense_tflops,interconnect,interconnect_gbps,tdp_w,source_note\n"
      "g,G,1,9.0,Hopper,1,1,1,,x,1,1,n\n");
  ASSERT_FALSE(old);
  EXPECT_NE(old.message().find("15 columns"), std::string::npos) << old.message();
  auto bad_flag = GpuCatalog::parse(
      "key,smi_name,memory_mib,compute_capability,arch,mem_bw_tbps,bf16_dense_tflops,fp8_dense_"
      "tflops,fp4_dense_tflops,interconnect,interconnect_gbps,tdp_w,integrated,mig,source_note\n"
      "g,G,1,9.0,Hopper,1,1,1,,x,1,1,yes,,n\n");
  ASSERT_FALSE(bad_flag);
  EXPECT_NE(bad_flag.message().find("integrated"), std::string::npos) << bad_flag.message();
}

TEST(GpuCatalog, UnifiedMemoryDevicesAndMigProfiles) {
  const GpuCatalog& c = GpuCatalog::builtin();
  for (std::string_view key : {"gb10", "jetson-thor", "jetson-agx-orin", "mi300a"}) {
    auto m = c.find(key);
    ASSERT_TRUE(m) << key;
    EXPECT_TRUE(m->spec->integrated) << key;
  }
  auto gb10 = c.find("NVIDIA GB10");
  ASSERT_TRUE(gb10);
  EXPECT_EQ(gb10->spec->compute_capability, "12.1");
  EXPECT_EQ(gb10->spec->cc_minor, 1);
  EXPECT_FALSE(c.find("h100-sxm")->spec->integrated);
  EXPECT_EQ(c.find("h100-sxm")->spec->mig_profiles,
            "1g.10gb;1g.20gb;2g.20gb;3g.40gb;4g.40gb;7g.80gb");
  EXPECT_TRUE(c.find("rtx-4090")->spec->mig_profiles.empty());
  // 120 GiB of free memory: a 141 GB H200 class, never the 128 GB unified GB10 or Thor.
  for (const GpuSpec& g : gpus_holding(118, true))
    EXPECT_FALSE(g.integrated) << g.key;
}

// Every catalog row: a unique key and name, a positive memory total, and the new GPUs people
// run on their desks and in clouds are there by the name nvidia-smi prints.
TEST(GpuCatalog, KeysAndNamesAreUniqueAndTheCommonGpusAreThere) {
  const GpuCatalog& c = GpuCatalog::builtin();
  std::set<std::string> keys, names;
  for (const GpuSpec& g : c.gpus()) {
    EXPECT_TRUE(keys.insert(g.key).second) << g.key;
    EXPECT_TRUE(names.insert(g.smi_name).second) << g.smi_name;
    EXPECT_GT(g.memory_mib, 0) << g.key;
  }
  for (std::string_view name :
       {"NVIDIA GeForce RTX 4090 D", "NVIDIA GeForce RTX 5080", "NVIDIA GeForce RTX 5070 Ti",
        "NVIDIA RTX 6000 Ada Generation", "NVIDIA RTX A5000", "NVIDIA A30", "NVIDIA GH200 480GB",
        "NVIDIA GB300", "NVIDIA Thor", "AMD Instinct MI210", "AMD Radeon RX 7900 XTX"}) {
    EXPECT_TRUE(c.find(name)) << name;
  }
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
