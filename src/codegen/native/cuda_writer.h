// Accumulates a kernel body: indented lines and fresh names for the values
// it declares (every value is a `const` local, written once).
#pragma once

#include <string>

namespace jft::codegen::native {

class CudaWriter {
 public:
  // Declares `const type vN = expr;` and returns "vN".
  std::string let(const std::string& type, const std::string& expr);
  // A fresh name without a declaration ("vN"), for mutable locals.
  std::string fresh();
  void line(const std::string& text);
  void open(const std::string& text);  // "for (...) {": writes it, indents
  void close(const std::string& text = "}");
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  int indent_ = 1;
  int next_ = 0;
};

}  // namespace jft::codegen::native
