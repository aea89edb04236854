#include "codegen/native/cuda_writer.h"

namespace jft::codegen::native {

std::string CudaWriter::fresh() {
  return "v" + std::to_string(next_++);
}

std::string CudaWriter::let(const std::string& type, const std::string& expr) {
  std::string name = fresh();
  line("const " + type + " " + name + " = " + expr + ";");
  return name;
}

void CudaWriter::line(const std::string& text) {
  text_.append(static_cast<size_t>(indent_) * 2, ' ').append(text).append("\n");
}

void CudaWriter::open(const std::string& text) {
  line(text);
  ++indent_;
}

void CudaWriter::close(const std::string& text) {
  --indent_;
  line(text);
}

}  // namespace jft::codegen::native
