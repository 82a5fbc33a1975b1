#include "engines/python_repr.h"

#include <gtest/gtest.h>

#include <cmath>

namespace servescope {
namespace {

TEST(PythonRepr, ReadsEveryLiteralKindOfAServerArgsDump) {
  const PythonCall c = parse_python_call(
      "server_args=ServerArgs(model_path='/m/Qwen', tp_size=4, mem_fraction_static=0.85, "
      "max_running_requests=None, trust_remote_code=True, enable_p2p_check=False, "
      "cuda_graph_bs=[1, 2, 4, 8], json_model_override_args='{}', random_seed=-7, "
      "speculative_accept_threshold_single=1e-05, lora_paths=['a', 'b'])");
  EXPECT_EQ(c.type, "ServerArgs");
  EXPECT_TRUE(c.complete);
  EXPECT_FALSE(c.elided);
  EXPECT_FALSE(c.malformed);
  Fact f;
  f.fields = c.fields;
  EXPECT_EQ(f.text("model_path"), "/m/Qwen");
  EXPECT_EQ(f.integer("tp_size"), 4);
  EXPECT_DOUBLE_EQ(*f.number("mem_fraction_static"), 0.85);
  EXPECT_TRUE(f.find("max_running_requests")->is_none());
  EXPECT_TRUE(f.find("trust_remote_code")->as_bool());
  EXPECT_FALSE(f.find("enable_p2p_check")->as_bool());
  EXPECT_EQ(*f.int_list("cuda_graph_bs"), (IntList{1, 2, 4, 8}));
  EXPECT_EQ(f.text("json_model_override_args"), "{}");
  EXPECT_EQ(f.integer("random_seed"), -7);
  EXPECT_DOUBLE_EQ(*f.number("speculative_accept_threshold_single"), 1e-05);
  EXPECT_EQ(f.text("lora_paths"), "['a', 'b']");
}

TEST(PythonRepr, DecodesStringEscapes) {
  const PythonCall c = parse_python_call(
      R"(X(a='it\'s', b="say \"hi\"", c='tab\there', d='\\path', e='\x41\u00e9'))");
  Fact f;
  f.fields = c.fields;
  EXPECT_EQ(f.text("a"), "it's");
  EXPECT_EQ(f.text("b"), "say \"hi\"");
  EXPECT_EQ(f.text("c"), "tab\there");
  EXPECT_EQ(f.text("d"), "\\path");
  EXPECT_EQ(f.text("e"), "A\xC3\xA9");
}

TEST(PythonRepr, FlattensNestedObjectsAndStringKeyedDicts) {
  const PythonCall c = parse_python_call(
      "ServerArgs(cuda_graph_config=CudaGraphConfig(decode=PhaseConfig(backend='full', "
      "max_bs=117, bs=[1, 2, 4]), prefill=PhaseConfig(backend='breakable', max_bs=None)), "
      "extra={'k': 3, 'nested': {'x': True}}, tp_size=2)");
  Fact f;
  f.fields = c.fields;
  ASSERT_TRUE(f.text("cuda_graph_config"));
  EXPECT_EQ(f.text("cuda_graph_config")->substr(0, 16), "CudaGraphConfig(");
  EXPECT_EQ(f.text("cuda_graph_config.decode.backend"), "full");
  EXPECT_EQ(f.integer("cuda_graph_config.decode.max_bs"), 117);
  EXPECT_EQ(*f.int_list("cuda_graph_config.decode.bs"), (IntList{1, 2, 4}));
  EXPECT_TRUE(f.find("cuda_graph_config.prefill.max_bs")->is_none());
  EXPECT_EQ(f.integer("extra.k"), 3);
  EXPECT_TRUE(f.find("extra.nested.x")->as_bool());
  EXPECT_EQ(f.integer("tp_size"), 2);
  EXPECT_TRUE(c.complete);
}

TEST(PythonRepr, ToleratesElisionsOfPublishedExcerpts) {
  const PythonCall c = parse_python_call(
      "server_args=ServerArgs(model_path='x', [...] mem_fraction_static=0.88, [...] "
      "tp_size=4, [...])");
  Fact f;
  f.fields = c.fields;
  EXPECT_TRUE(c.elided);
  EXPECT_TRUE(c.complete);
  EXPECT_EQ(f.text("model_path"), "x");
  EXPECT_DOUBLE_EQ(*f.number("mem_fraction_static"), 0.88);
  EXPECT_EQ(f.integer("tp_size"), 4);
  EXPECT_EQ(f.fields.size(), 3u);
}

TEST(PythonRepr, ACutDumpKeepsTheFieldsBeforeTheCut) {
  const PythonCall c = parse_python_call("ServerArgs(model_path='m', tp_size=8, mem_fraction_sta");
  Fact f;
  f.fields = c.fields;
  EXPECT_FALSE(c.complete);
  EXPECT_EQ(f.integer("tp_size"), 8);
  EXPECT_EQ(f.text("model_path"), "m");
}

TEST(PythonRepr, EnumAndObjectReprsAreKeptAsText) {
  const PythonCall c = parse_python_call(
      "A(backend=<Backend.FULL: 'full'>, dtype=torch.bfloat16, path=PosixPath('/x'), n=inf, "
      "m=nan, big=123456789012345678901234567890)");
  Fact f;
  f.fields = c.fields;
  EXPECT_EQ(f.text("backend"), "<Backend.FULL: 'full'>");
  EXPECT_EQ(f.text("dtype"), "torch.bfloat16");
  EXPECT_EQ(f.text("path"), "PosixPath('/x')");
  EXPECT_TRUE(std::isinf(*f.number("n")));
  EXPECT_TRUE(std::isnan(*f.number("m")));
  EXPECT_EQ(f.text("big"), "123456789012345678901234567890");
}

TEST(PythonRepr, DeepNestingAndGarbageNeverHang) {
  std::string deep = "A(x=" + std::string(5000, '[') + std::string(5000, ']') + ", y=1)";
  const PythonCall c = parse_python_call(deep);
  Fact f;
  f.fields = c.fields;
  EXPECT_EQ(f.integer("y"), 1);
  const PythonCall g = parse_python_call("A(=, ,,)) 'unterminated");
  EXPECT_TRUE(g.fields.empty());
  EXPECT_TRUE(parse_python_call("no call here").malformed);
  // Stray closing brackets where a field should start (found by the fuzzer: it looped).
  const PythonCall stray = parse_python_call("A(x=1, ] y=2)");
  Fact sf;
  sf.fields = stray.fields;
  EXPECT_EQ(sf.integer("x"), 1);
  EXPECT_EQ(sf.integer("y"), 2);
  EXPECT_TRUE(stray.malformed);
  EXPECT_TRUE(parse_python_call("A(x=]}]").malformed);
}

TEST(PythonRepr, Literals) {
  EXPECT_EQ(parse_python_literal("[1, 2, 4]"), Value(IntList{1, 2, 4}));
  EXPECT_EQ(parse_python_literal("(8,)"), Value(IntList{8}));
  EXPECT_EQ(parse_python_literal("[]"), Value(IntList{}));
  EXPECT_EQ(parse_python_literal("None"), Value());
  EXPECT_EQ(parse_python_literal("'a'"), Value("a"));
  EXPECT_EQ(parse_python_literal("[1, 2, ..., 512]").is_string(), true);
}

}  // namespace
}  // namespace servescope

namespace servescope {
namespace {

// "[1, 2, 4, ...]" in a published excerpt: the list's first elements, and a mark that it goes
// on (compared as a prefix, never as the whole list).
TEST(PythonRepr, AShortenedListKeepsItsPrefixAndSaysItGoesOn) {
  const Value shortened = parse_python_literal("[1, 2, 4, ...]");
  ASSERT_TRUE(shortened.is_list());
  EXPECT_EQ(shortened.as_list().size(), 4u);
  EXPECT_TRUE(list_goes_on(shortened.as_list()));
  EXPECT_EQ(shortened.to_string(), "[1, 2, 4, ...]");
  const Value whole = parse_python_literal("[1, 2, 4]");
  EXPECT_FALSE(list_goes_on(whole.as_list()));
  EXPECT_FALSE(parse_python_literal("[1, ..., 4]").is_list());  // a gap inside is not a prefix
  EXPECT_FALSE(parse_python_literal("[...]").is_list());
}

}  // namespace
}  // namespace servescope
