// Pass test cases written as IR text (tests/passes/cases/<pass>.ir): many
// small cases per file, each the IR going in and what must come out.
//
//   // CASE: reshape_of_reshape_reads_the_source
//   func.func @main(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
//     ...
//   }
//   // EXPECT:
//   func.func @main(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
//     ...
//   }
//
// `// EXPECT:` is followed by the IR the pass must produce; both sides are
// parsed and printed before they are compared, so value names and spacing
// are free. `// EXPECT: unchanged` says the pass must report no change (and
// leave the text as it was); `// EXPECT-ERROR: words` that the pass fails
// with a message containing them. Other `//` lines are comments. Text before
// the first CASE describes the file.
#pragma once

#include <string>
#include <vector>

#include "support/status.h"

namespace jft::passes::testing {

struct PassCase {
  enum class Expect { Output, Unchanged, Error };
  std::string pass;  // the file's stem: "cse" for cases/cse.ir
  std::string file;  // "cse.ir"
  std::string name;
  int line = 0;  // of the CASE line
  // The input and expected IR, each preceded by as many newlines as lines
  // before it in the file, so a parse error's line is the file's line.
  std::string input;
  std::string expected;
  Expect expect = Expect::Output;
  std::string error;  // Expect::Error: the words the message must hold
};

// The cases of one file, or INVALID_ARGUMENT naming the file's line that is
// out of place (no EXPECT, two EXPECTs, a duplicate name, ...).
StatusOr<std::vector<PassCase>> parseCaseFile(const std::string& file_name,
                                              const std::string& text);

}  // namespace jft::passes::testing
