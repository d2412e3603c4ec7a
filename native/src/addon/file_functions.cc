#include "file_functions.h"

#include <cstring>
#include <optional>
#include <string>

#include "args.h"
#include "core_task.h"
#include "tessera/file_checksum.h"

namespace tessera_addon {
namespace {

std::optional<uint64_t> LengthArg(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || info[i].IsUndefined() || info[i].IsNull()) return std::nullopt;
  double length = info[i].As<Napi::Number>().DoubleValue();
  if (!(length >= 0) || length > 9007199254740991.0) throw Napi::RangeError::New(info.Env(), "length must be a whole number from 0");
  return uint64_t(length);
}

// Runs `work` on a libuv worker; its FileChecksum travels as bytes, then as {crc32c, bytes}.
Napi::Value Settle(Napi::Env env, std::function<tessera::FileChecksum()> work) {
  return CoreTask::Run(
      env,
      [work = std::move(work)] {
        tessera::FileChecksum sum = work();
        std::string out(sizeof sum, '\0');
        std::memcpy(out.data(), &sum, sizeof sum);
        return out;
      },
      [](Napi::Env env, std::string& out) -> Napi::Value {
        tessera::FileChecksum sum;
        std::memcpy(&sum, out.data(), sizeof sum);
        Napi::Object result = Napi::Object::New(env);
        result.Set("crc32c", Napi::Number::New(env, sum.crc32c));
        result.Set("bytes", Napi::Number::New(env, double(sum.bytes)));
        return result;
      });
}

Napi::Value ChecksumFile(const Napi::CallbackInfo& info) {
  std::string path = StringArg(info, 0);
  std::optional<uint64_t> length = LengthArg(info, 1);
  return Settle(info.Env(), [path, length] { return tessera::ChecksumFile(path, length); });
}

Napi::Value CopyFileChecksummed(const Napi::CallbackInfo& info) {
  std::string from = StringArg(info, 0), to = StringArg(info, 1);
  std::optional<uint64_t> length = LengthArg(info, 2);
  return Settle(info.Env(), [from, to, length] { return tessera::CopyFileChecksummed(from, to, length); });
}

Napi::Value SyncFile(const Napi::CallbackInfo& info) {
  std::string path = StringArg(info, 0);
  return CoreTask::Run(info.Env(), [path] {
    tessera::SyncFile(path);
    return std::string();
  });
}

}  // namespace

void ExportFileFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("checksumFile", Napi::Function::New(env, ChecksumFile));
  exports.Set("copyFileChecksummed", Napi::Function::New(env, CopyFileChecksummed));
  exports.Set("syncFile", Napi::Function::New(env, SyncFile));
}

}  // namespace tessera_addon
