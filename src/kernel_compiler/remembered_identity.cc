#include "kernel_compiler/remembered_identity.h"

#include "kernel_compiler/compiled_kernel_json.h"
#include "kernel_compiler/json.h"
#include "support/atomic_file.h"

namespace jft::kernel_compiler {

bool isCompilerFingerprint(std::string_view text) {
  if (text.size() < 16 || text.size() > 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string RememberedIdentities::path(const std::string& fingerprint) const {
  return dir_ + "/compilers/" + fingerprint + ".json";
}

std::optional<CompilerIdentity> RememberedIdentities::load(
    const std::string& fingerprint) const {
  if (!isCompilerFingerprint(fingerprint)) return std::nullopt;
  auto text = readWholeFile(path(fingerprint));
  if (!text.isOk()) return std::nullopt;
  auto json = Json::parse(*text);
  if (!json.isOk()) return std::nullopt;
  // A record copied under another name must not stand for this build.
  auto stored = requireString(*json, "fingerprint");
  if (!stored.isOk() || *stored != fingerprint) return std::nullopt;
  const Json* compiler = json->find("compiler");
  if (compiler == nullptr) return std::nullopt;
  auto identity = compilerIdentityFromJson(*compiler);
  if (!identity.isOk()) return std::nullopt;
  return std::move(identity).value();
}

Status RememberedIdentities::store(const std::string& fingerprint,
                                   const CompilerIdentity& identity) const {
  if (!isCompilerFingerprint(fingerprint))
    return invalidArgument("'" + fingerprint + "' is not a compiler fingerprint");
  Json record;
  record.set("fingerprint", fingerprint);
  record.set("compiler", compilerIdentityToJson(identity));
  JFT_RETURN_IF_ERROR(makeDirectories(dir_ + "/compilers"));
  return writeFileAtomically(path(fingerprint), record.dump() + "\n");
}

}  // namespace jft::kernel_compiler
