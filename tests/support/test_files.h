// test_files — files the tests and benchmarks read and write: whole files, paths in the source
// tree, the committed PTX of tests/kernels, and scratch folders in the build tree.
#ifndef SIMTVP_TESTS_SUPPORT_TEST_FILES_H
#define SIMTVP_TESTS_SUPPORT_TEST_FILES_H

#include <string>

namespace test_support {

// The whole file (binary); "" when it cannot be read.
std::string read_file(const std::string &path);
// A path in the source tree: `rel` relative to its root.
std::string source_path(const std::string &rel);
// The text of tests/kernels/ptx/<name>.
std::string kernel_ptx(const std::string &name);
// <build tree>/<folder>/scratch-<name>-<pid>, removed first (a rerun starts empty) and created
// unless create is false (for a test that checks that the code under test creates it); "" when
// the shell commands fail.
std::string scratch_dir(const std::string &folder, const std::string &name, bool create = true);

}  // namespace test_support

#endif  // SIMTVP_TESTS_SUPPORT_TEST_FILES_H
