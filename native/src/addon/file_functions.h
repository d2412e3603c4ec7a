// The checksummed file reads of backups as JS functions, each settled from a libuv worker:
// checksumFile(path, length?) and copyFileChecksummed(from, to, length?), both -> {crc32c, bytes},
// and syncFile(path).
#pragma once
#include <napi.h>

namespace tessera_addon {

void ExportFileFunctions(Napi::Env env, Napi::Object exports);

}  // namespace tessera_addon
