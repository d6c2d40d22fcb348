// Malformed PTX: every error is a SIMTVP_ERR_PARSE (or LIMIT) diag naming file:line:column and
// quoting the offending line, and no module is returned.
#include "ptx_test_util.h"

using namespace ptxtest;

namespace {

// Parses `text`, expects failure at line:col, and returns the message.
std::string expect_error(const std::string &text, uint32_t line, uint32_t col,
                         simtvp_status status = SIMTVP_ERR_PARSE) {
  auto r = parse(text, "bad.ptx");
  EXPECT_FALSE(r->m) << text;
  EXPECT_EQ(r->diag.status, status) << r->diag.message;
  EXPECT_TRUE(r->diag.where & SIMTVP_WHERE_FILE);
  EXPECT_STREQ(r->diag.file, "bad.ptx");
  EXPECT_EQ(r->diag.line, line) << r->diag.message;
  EXPECT_EQ(r->diag.column, col) << r->diag.message;
  std::string msg = r->diag.message;
  std::string place = "bad.ptx:" + std::to_string(line) + ":" + std::to_string(col) + ":";
  EXPECT_EQ(msg.rfind(place, 0), 0u) << msg;
  return msg;
}

const char *kHead = ".version 9.0\n.target sm_75\n.address_size 64\n"; // 3 lines

std::string body(const std::string &b) { return std::string(kHead) + ".entry k()\n{\n" + b + "\n}\n"; } // body at line 6

}  // namespace

TEST(PtxErrors, UnknownInstructionNamesItsPlaceAndText) {
  std::string msg = expect_error(body(".reg .b32 %r<3>;\n  frob.u32 %r1, %r2;"), 7, 3);
  EXPECT_NE(msg.find("unknown instruction 'frob'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("frob.u32 %r1, %r2;"), std::string::npos) << msg; // the source line is quoted
}

TEST(PtxErrors, UnknownModifier) {
  std::string msg = expect_error(body(".reg .b32 %r<3>;\nadd.bogus.s32 %r1, %r2, %r2;"), 7, 1);
  EXPECT_NE(msg.find("'.bogus'"), std::string::npos) << msg;
}

TEST(PtxErrors, ModifierOnTheWrongInstruction) {
  std::string msg = expect_error(body(".reg .b32 %r<3>;\nadd.bfly.s32 %r1, %r2, %r2;"), 7, 1);
  EXPECT_NE(msg.find("not valid on add"), std::string::npos) << msg;
}

TEST(PtxErrors, UndeclaredRegister) {
  std::string msg = expect_error(body(".reg .b32 %r<3>;\nadd.s32 %r1, %r7, %r2;"), 7, 14);
  EXPECT_NE(msg.find("undeclared name '%r7'"), std::string::npos) << msg;
}

TEST(PtxErrors, UndefinedLabelIsReportedAtTheBranch) {
  std::string msg = expect_error(body("bra NOWHERE;\nret;"), 6, 5);
  EXPECT_NE(msg.find("undefined label 'NOWHERE'"), std::string::npos) << msg;
}

TEST(PtxErrors, DuplicateLabel) {
  expect_error(body("L:\nret;\nL:\nret;"), 8, 1);
}

TEST(PtxErrors, MissingSemicolon) {
  std::string msg = expect_error(body(".reg .b32 %r<3>;\nmov.u32 %r1, 1\nret;"), 8, 1);
  EXPECT_NE(msg.find("expected ',' or ';'"), std::string::npos) << msg;
}

TEST(PtxErrors, WrongOperandCount) {
  std::string msg = expect_error(body(".reg .b32 %r<3>;\nadd.s32 %r1, %r2;"), 7, 1);
  EXPECT_NE(msg.find("add takes 3 operands, found 2"), std::string::npos) << msg;
}

TEST(PtxErrors, DestinationMustBeARegister) {
  expect_error(body(".reg .b32 %r<3>;\nadd.s32 5, %r2, %r2;"), 7, 1);
}

TEST(PtxErrors, GuardMustBeAPredicate) {
  std::string msg = expect_error(body(".reg .b32 %r<3>;\n@%r1 ret;"), 7, 2);
  EXPECT_NE(msg.find("not a predicate"), std::string::npos) << msg;
}

TEST(PtxErrors, MalformedNumbers) {
  expect_error(body(".reg .b32 %r<3>;\nmov.u32 %r1, 0x;"), 7, 14);
  expect_error(body(".reg .f32 %f<3>;\nmov.f32 %f1, 0f3F80;"), 7, 14);
  expect_error(body(".reg .b32 %r<3>;\nmov.u32 %r1, 99999999999999999999999;"), 7, 14);
  expect_error(body(".reg .b32 %r<3>;\nmov.u32 %r1, 1 / 0;"), 7, 16);
}

TEST(PtxErrors, UnterminatedCommentAndString) {
  expect_error(std::string(kHead) + "/* never closed\n.entry k()\n{\nret;\n}\n", 4, 1);
  expect_error(std::string(kHead) + ".file 1 \"x.cu\n", 4, 9);
}

TEST(PtxErrors, UnexpectedCharacter) {
  std::string msg = expect_error(body("ret; #"), 6, 6);
  EXPECT_NE(msg.find("unexpected character '#'"), std::string::npos) << msg;
  std::string nul = body("ret;");
  nul[nul.size() - 4] = '\0';
  auto r = parse(nul);
  EXPECT_FALSE(r->m);
  EXPECT_NE(std::string(r->diag.message).find("unexpected byte 0x00"), std::string::npos);
}

TEST(PtxErrors, MissingClosingBrace) {
  std::string msg = expect_error(std::string(kHead) + ".entry k()\n{\nret;\n", 4, 1);
  EXPECT_NE(msg.find("no closing '}'"), std::string::npos) << msg;
}

TEST(PtxErrors, InstructionAtModuleScope) {
  expect_error(std::string(kHead) + "ret;\n", 4, 1);
}

TEST(PtxErrors, TooManyInitialisers) {
  std::string msg = expect_error(std::string(kHead) + ".global .u32 a[2] = {1, 2, 3};\n", 4, 28);
  EXPECT_NE(msg.find("more initialisers"), std::string::npos) << msg;
}

TEST(PtxErrors, InitialiserNamesAnUndeclaredSymbol) {
  expect_error(std::string(kHead) + ".global .u64 p = missing;\n", 4, 18);
}

TEST(PtxErrors, DuplicateDeclarationInOneScope) {
  std::string msg = expect_error(body(".reg .b32 x;\n.reg .b32 x;\nret;"), 7, 11);
  EXPECT_NE(msg.find("already declared"), std::string::npos) << msg;
}

TEST(PtxErrors, FunctionDefinedTwice) {
  expect_error(std::string(kHead) + ".func f()\n{\nret;\n}\n.func f()\n{\nret;\n}\n", 8, 7);
}

TEST(PtxErrors, IndirectCallNeedsAPrototype) {
  expect_error(body(".reg .b64 %rd<2>;\ncall %rd1, ();\nret;"), 7, 6);
}

TEST(PtxErrors, VectorCountMustMatch) {
  expect_error(body(".reg .b32 %r<5>;\n.reg .b64 %rd<2>;\nld.global.v4.u32 {%r1, %r2}, [%rd1];"), 8, 1);
}

TEST(PtxErrors, ConflictingModifiers) {
  expect_error(body(".reg .f32 %f<3>;\nadd.rn.rz.f32 %f1, %f2, %f2;"), 7, 1);
}

TEST(PtxErrors, DeeplyNestedExpressionIsRejectedNotRecursedInto) {
  std::string e(5000, '(');
  auto r = parse(body(".reg .b32 %r<2>;\nmov.u32 %r1, " + e + "1;"));
  EXPECT_FALSE(r->m);
  EXPECT_NE(std::string(r->diag.message).find("nested too deeply"), std::string::npos) << r->diag.message;
  std::string braces(5000, '{');
  auto r2 = parse(body(braces));
  EXPECT_FALSE(r2->m);
  auto r3 = parse(std::string(kHead) + ".global .u32 a[1] = " + braces);
  EXPECT_FALSE(r3->m);
}

TEST(PtxErrors, LabelOutsideAFunction) {
  expect_error(std::string(kHead) + "L: ret;\n", 4, 1);
}

TEST(PtxErrors, UnsizedArrayNeedsExternOrInitialiser) {
  expect_error(std::string(kHead) + ".shared .align 4 .b8 s[];\n", 4, 22);
}

TEST(PtxErrors, BadArgumentsAreReportedNotCrashed) {
  simtvp_diag d;
  EXPECT_FALSE(ptx_parse(nullptr, 10, "x", nullptr, &d));
  EXPECT_EQ(d.status, SIMTVP_ERR_ARG);
  EXPECT_FALSE(ptx_parse_file(nullptr, nullptr, &d));
  EXPECT_EQ(ptx_find_function(nullptr, "x"), PTX_NONE);
  EXPECT_EQ(ptx_find_symbol(nullptr, "x"), PTX_NONE);
  ptx_module_destroy(nullptr);
  ptx_module *m = ptx_parse("", 0, nullptr, nullptr, nullptr); // empty input: an empty module
  ASSERT_TRUE(m);
  EXPECT_EQ(m->n_functions, 0u);
  ptx_module_destroy(m);
}

TEST(PtxErrors, HugeInitialisedArraysHitALimitNotMemory) {
  // 5 GB to zero-fill after the first element: refused before anything is allocated
  std::string msg = expect_error(std::string(kHead) + ".global .u8 big[5000000000] = {1};\n", 4, 13,
                                 SIMTVP_ERR_LIMIT);
  EXPECT_NE(msg.find("initialiser data"), std::string::npos) << msg;
  auto r = parse(std::string(kHead) + ".global .u8 big_uninitialised[5000000000];\n");
  ASSERT_TRUE(r->m) << r->diag.message; // no initialiser: just a size in the segment
  EXPECT_EQ(r->m->global_segment_bytes, 5000000000ull);
}

TEST(PtxErrors, RegisterCountsAreBounded) {
  std::string decl;
  for (int i = 0; i < 5; i++) decl += ".reg .b32 %r" + std::string(1, char('a' + i)) + "<1048576>;\n";
  std::string msg = expect_error(body(decl + "ret;"), 10, 11, SIMTVP_ERR_LIMIT);
  EXPECT_NE(msg.find("registers of the function"), std::string::npos) << msg;
  expect_error(body(".reg .b32 %r<99999999>;\nret;"), 6, 14);
}
